import { initAnalysis } from './src/analysis/analyzer.ts';
import { startBenchApp } from './bench/lib/bench-app.ts';
import { ask } from './bench/lib/answers-common.ts';
import { xquadCases } from './bench/lib/answers-sets.ts';
const langs = (process.env.LANGS ?? 'el').split(',');
const size = Number(process.env.SIZE ?? 10);
const split = (process.env.SPLIT ?? 'train') as 'train' | 'test';
await initAnalysis();
const app = await startBenchApp({ workers: true });
try {
  for (const lang of langs) {
    const [c] = await xquadCases(app, lang, [size], 100000, split);
    let ok = 0, empty = 0;
    const miss: string[] = [];
    const bins: Record<string, number[]> = {};
    const add = (k: string, rel: boolean) => { (bins[k] ??= [0, 0])[0]++; if (rel) bins[k][1]++; };
    for (const q of c.questions) {
      const a = await ask(app, q.project, q.text, {}, q.path);
      const hit = q.inContext!(a.context);
      if (hit) ok++;
      a.ranking.forEach((h, i) => { const b = Math.floor(h.score * 10) / 10; add(`${i === 0 ? 'top' : 'rest'} ${b.toFixed(1)}`, q.relevant(h)); });
      if (a.admitted.length === 0) empty++;
      if (!hit && process.env.SHOW) {
        const r = a.ranking.findIndex((h) => q.relevant(h));
        miss.push(`rank=${r} s=${r >= 0 ? a.ranking[r].score.toFixed(3) : '-'} top=${a.ranking[0]?.score.toFixed(3)} adm=${a.admitted.length} | ${q.text}`);
      }
    }
    console.log(`${lang} ${split} n=${size}: ${ok}/${c.questions.length} = ${(ok / c.questions.length).toFixed(3)} empty=${empty}`);
    for (const m of miss) console.log('   ', m);
    console.log(Object.entries(bins).sort().map(([k, [n, p]]) => `${k}: ${p}/${n}=${(p / n).toFixed(2)}`).join('\n'));
  }
} finally { await app.close(); }
