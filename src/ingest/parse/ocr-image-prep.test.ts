// Unit tests of the OCR image preparation: dark pictures are inverted to dark-on-light grey, light ones
// pass in colour, and the line-height estimate follows the size of the text drawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { decodeImage, estimateLineHeight, prepareForOcr } from './ocr-image-prep.ts';

async function picture(bg: string, fg: string, px: number): Promise<Buffer> {
  const c = createCanvas(800, 400);
  const ctx = c.getContext('2d');
  ctx.fillStyle = bg;
  ctx.fillRect(0, 0, 800, 400);
  ctx.fillStyle = fg;
  ctx.font = `${px}px sans-serif`;
  for (let y = px * 1.5; y < 380; y += px * 1.8) ctx.fillText('Hxgy lines of text, repeated Hxgy', 10, y);
  return c.encode('png');
}

test('white on black becomes black on white grey; black on white stays colour (PNG for tesseract)', async () => {
  const dark = await prepareForOcr(await decodeImage(await picture('#000000', '#ffffff', 20)));
  assert.equal(dark.inverted, true);
  assert.equal((await sharp(dark.png).metadata()).channels, 1);
  const darkPixels = await sharp(dark.png).extractChannel(0).raw().toBuffer();
  assert.equal(darkPixels[0], 255, 'the black background is white now');
  const light = await prepareForOcr(await decodeImage(await picture('#ffffff', '#000000', 20)), 1.5);
  assert.equal(light.inverted, false);
  const meta = await sharp(light.png).metadata();
  assert.deepEqual([meta.format, meta.channels, meta.width, meta.height], ['png', 3, 1200, 600]);
  assert.deepEqual([light.width, light.height], [1200, 600]);
});

test('line height estimate grows with the font size', async () => {
  const small = estimateLineHeight(await decodeImage(await picture('#ffffff', '#000000', 12)))!;
  const large = estimateLineHeight(await decodeImage(await picture('#ffffff', '#000000', 36)))!;
  assert.ok(small >= 7 && small <= 16, `12 px text: ${small}`);
  assert.ok(large / small >= 2.2 && large / small <= 3.8, `36 px text: ${large} vs 12 px text: ${small}`);
  const inverted = estimateLineHeight(await decodeImage(await picture('#101010', '#f0f0f0', 36)))!;
  assert.ok(Math.abs(inverted - large) <= 3, `light on dark: ${inverted} vs ${large}`);
});
