// Which Tesseract languages the OCR step uses, which Debian package carries each one, and the start-up
// check that says, in one log line, when configured languages (or tesseract itself) are missing (issue
// 16). Without it a missing language pack shows up only later, per job, as a poor or failed scan.
// The language table here is the one ocr.ts picks from, so the check and the OCR cannot drift apart.
import { installedLanguages } from './ocr-tesseract.ts';

/** Language sets ocr.ts tries per script reported by Tesseract's OSD (first part = primary). */
export const SCRIPT_CANDIDATES: Readonly<Record<string, readonly string[]>> = {
  Han: ['chi_sim', 'jpn+jpn_vert'],
  Japanese: ['jpn+jpn_vert'],
  Katakana: ['jpn+jpn_vert'],
  Hiragana: ['jpn+jpn_vert'],
  Hangul: ['kor+eng'],
  Korean: ['kor+eng'],
};
/** Language set for Latin, any other script, or no OSD guess. */
export const DEFAULT_CANDIDATES: readonly string[] = ['eng'];
/** Sets retried when many characters were read with low confidence (mixed-script pages). */
export const RETRY_CANDIDATES: readonly string[] = ['kor+eng', 'chi_sim+eng', 'jpn+eng'];

/** Every language the automatic choice can use, in a stable order: eng, chi_sim, jpn, jpn_vert, kor. */
export function automaticLanguages(): string[] {
  const sets = [...DEFAULT_CANDIDATES, ...Object.values(SCRIPT_CANDIDATES).flat(), ...RETRY_CANDIDATES];
  return [...new Set(sets.flatMap((s) => s.split('+')))];
}

/**
 * Languages OCR is configured to use.
 * @param fixedLangs DOCSEARCH_OCR_LANGS (e.g. "deu+eng"); empty/undefined = the automatic choice
 */
export function configuredLanguages(fixedLangs?: string): string[] {
  const fixed = fixedLangs?.trim();
  if (!fixed) return automaticLanguages();
  return [...new Set(fixed.split('+').map((s) => s.trim()).filter(Boolean))];
}

/** Debian package holding a language's traineddata: chi_sim_vert -> tesseract-ocr-chi-sim-vert. */
export function tesseractPackage(lang: string): string {
  return `tesseract-ocr-${lang.toLowerCase().replace(/_/g, '-')}`;
}

/**
 * What is missing for OCR in `wanted`.
 * @param installed languages tesseract lists, or null when tesseract itself is not installed
 * @returns tesseract: whether the engine is missing; langs: wanted languages without traineddata
 *   (all of them when tesseract is missing); packages: the Debian packages that add them
 */
export function missingOcr(wanted: readonly string[], installed: ReadonlySet<string> | null): { tesseract: boolean; langs: string[]; packages: string[] } {
  const langs = wanted.filter((l) => !installed?.has(l));
  const packages = [...(installed ? [] : ['tesseract-ocr']), ...langs.map(tesseractPackage)];
  return { tesseract: installed === null, langs, packages };
}

/**
 * The one start-up warning line for missing OCR pieces, or null when everything configured is there.
 * @param installed as for missingOcr()
 */
export function ocrSetupWarning(wanted: readonly string[], installed: ReadonlySet<string> | null): string | null {
  const m = missingOcr(wanted, installed);
  if (!m.packages.length) return null;
  const fix = `add with: apt-get install ${m.packages.join(' ')} (or set DOCSEARCH_OCR=off)`;
  if (m.tesseract) {
    return `OCR: tesseract is not installed, so scanned PDFs and pictures will fail with no_extractable_text; ${fix}`;
  }
  return `OCR: Tesseract language data missing for ${m.langs.join(', ')} (configured: ${wanted.join(', ')}); scans in `
    + `${m.langs.length > 1 ? 'these languages' : 'this language'} will be misread or fail; ${fix}`;
}

/**
 * Start-up check of the OCR set-up (runs `tesseract --list-langs` once, ≤ 10 s).
 * @param opts.ocr false when OCR is switched off (DOCSEARCH_OCR=off): nothing to check
 * @param opts.fixedLangs DOCSEARCH_OCR_LANGS, if set
 * @returns the warning line to log, or null
 */
export async function checkOcrSetup(opts: { ocr: boolean; fixedLangs?: string }): Promise<string | null> {
  if (!opts.ocr) return null;
  const have = await installedLanguages();
  // installedLanguages() is empty both when tesseract is missing and when it has no data at all;
  // either way nothing can be read, and installing tesseract-ocr is harmless when it is present.
  return ocrSetupWarning(configuredLanguages(opts.fixedLangs), have.size ? have : null);
}
