// Per-question diagnosis of FinanceBench (a TEST set: for reading failures, never for fitting): for each
// question, plain form, over the whole namespace and with searchInDoc: in context?, rank and score of the
// first evidence-page hit, top score, admitted hits, tokens. Usage: npx tsx bench/fb-diagnose.ts [--inDoc]
import { initAnalysis } from '../src/analysis/analyzer.ts';
import { startBenchApp } from './lib/bench-app.ts';
import { ask } from './lib/answers-common.ts';
import { financebenchCases } from './lib/answers-sets.ts';

await initAnalysis();
const app = await startBenchApp({ workers: true });
try {
  const cases = await financebenchCases(app);
  for (const c of cases) {
    console.log(`== ${c.name}`);
    let ok = 0;
    for (const [i, q] of c.questions.entries()) {
      const a = await ask(app, q.project, q.text, q.extra ?? {}, q.path);
      const hit = a.admitted.some((h) => q.relevant(h));
      if (hit) ok++;
      const r = a.ranking.findIndex((h) => q.relevant(h));
      const top = a.ranking[0];
      console.log(`${String(i).padStart(2)} ${hit ? 'OK ' : '-- '} rank=${r} s=${r >= 0 ? a.ranking[r].score.toFixed(3) : '-'} top=${top?.score.toFixed(3)} adm=${a.admitted.length} tok=${a.tokens} | ${q.text.slice(0, 110)}`);
    }
    console.log(`${c.name}: ${ok}/${c.questions.length}`);
  }
} finally {
  await app.close();
}
