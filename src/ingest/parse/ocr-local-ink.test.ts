// Unit tests of the light-on-dark preparation (ocr-local-ink.ts): white on black, white on a coloured
// box, black on a white card and orange on black all come out as dark ink on white, which one global
// luminance inversion does not give (the card turns black); and a picture mixing them is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCanvas } from '@napi-rs/canvas';
import { ocrImage } from './ocr.ts';
import { decodeImage } from './ocr-image-prep.ts';
import { localInk } from './ocr-local-ink.ts';

/** Regions of the test picture: background colour, ink colour, and the word drawn in it. */
const REGIONS = [
  { bg: '#0d1117', ink: '#ffffff', word: 'Alpha' }, // white on the picture's black
  { bg: '#0050c8', ink: '#ffffff', word: 'Bravo' }, // white on a blue box
  { bg: '#f4f4f4', ink: '#111111', word: 'Charlie' }, // black on a white card
  { bg: '#0d1117', ink: '#ff9900', word: 'Delta' }, // orange on black (its min channel is 0)
  { bg: '#0d1117', ink: '#606060', word: 'Echo' }, // dim grey on black (kept as mid grey, not read)
];
const W = 1000;
const ROW = 110;

/**
 * A black picture with one 300 x 80 box per region, each with a bar 6 px thick (a stroke, `bars`) or
 * its word in bold 24 px type (the size of the diagram's labels) in its ink.
 */
function picture(bars: boolean) {
  const c = createCanvas(W, ROW * REGIONS.length);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#0d1117';
  ctx.fillRect(0, 0, W, ROW * REGIONS.length);
  REGIONS.forEach((r, i) => {
    const y = i * ROW + 15;
    ctx.fillStyle = r.bg;
    ctx.fillRect(100, y, 300, 80);
    ctx.fillStyle = r.ink;
    if (bars) ctx.fillRect(200, y + 37, 100, 6);
    else {
      ctx.font = 'bold 24px sans-serif';
      ctx.fillText(r.word, 130, y + 48);
    }
  });
  return c;
}

test('localInk: ink of every polarity and colour dark on white, the background white', async () => {
  const img = await decodeImage(await picture(true).encode('png'));
  const ink = await localInk(img.data, img.width, img.height);
  assert.equal(ink.length, img.width * img.height);
  const at = (x: number, y: number) => ink[y * img.width + x];
  const luma = (x: number, y: number) => {
    const i = (y * img.width + x) * 3;
    return 255 - ((img.data[i] * 77 + img.data[i + 1] * 150 + img.data[i + 2] * 29) >> 8);
  };
  REGIONS.forEach((r, i) => {
    const y = i * ROW + 15;
    const bar = at(250, y + 40);
    const box = at(130, y + 40); // the box's own background, 30 px inside its edge
    assert.equal(box, 255, `${r.word}: background white`);
    assert.ok(bar < (r.word === 'Echo' ? 200 : 60), `${r.word}: bar is ink (${bar})`);
  });
  assert.ok(at(700, 50) === 255 && at(700, 300) === 255, 'the picture background is white');
  // What the global luminance inversion gave: the white card becomes black around black ink.
  assert.ok(luma(130, 2 * ROW + 55) < 20 && luma(250, 2 * ROW + 55) > 230, 'inversion: card black, ink white');
});

test('a light-on-dark picture with mixed polarities and colours: every word read', async () => {
  // The global luminance inversion before read "Alpha Bravo Delta": the card's black word came out
  // white on black. The dim grey word is not read either way (mid grey under tesseract's threshold).
  const result = await ocrImage(await picture(false).encode('png'));
  assert.equal(result.inverted, true);
  const text = result.runs.map((r) => r.str).join(' ');
  for (const r of REGIONS.filter((x) => x.word !== 'Echo')) assert.match(text, new RegExp(`\\b${r.word}\\b`), text);
});
