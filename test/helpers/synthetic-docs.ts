// Synthetic Markdown documents for the scale-out test and bench: deterministic, cheap to parse,
// about one chunk per section, and every paragraph carries one word unique to the document, so a search for it
// finds exactly that document.
import crypto from 'node:crypto';

const WORDS = ('river stone market winter signal harbor garden engine letter mountain copper forest valley lantern ' +
  'window mirror thunder orchard bridge canvas meadow silver anchor candle ladder basket pepper saddle timber velvet').split(' ');

/** A markdown document of `sections` sections whose every paragraph carries the unique word `marker`. */
export function syntheticDoc(marker: string, seed: number, sections = 8): string {
  let x = seed;
  const word = () => WORDS[(x = (x * 1103515245 + 12345) % 2 ** 31) % WORDS.length];
  const parts = [`# Report ${marker}`];
  for (let s = 0; s < sections; s++) {
    parts.push(`## Section ${s + 1}`);
    for (let p = 0; p < 4; p++) parts.push(`${marker} ${Array.from({ length: 70 }, word).join(' ')}.`);
  }
  return parts.join('\n\n') + '\n';
}

/** A marker word: letters only, so the analyser keeps it whole. */
export const markerOf = (i: number) => 'zq' + crypto.createHash('sha1').update(String(i)).digest('hex').replace(/\d/g, '').slice(0, 10);
