// Ruled-table reading on synthetic page geometry: which runs a table takes and what its header is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findTables } from './pdf-tables.ts';
import type { TextRun } from './pdf-layout.ts';

const run = (str: string, x: number, y: number, width = str.length * 5): TextRun => ({ str, x, y, width, size: 10, hasEOL: false, rotated: false });
const rule = (y: number) => ({ x0: 50, y0: y, x1: 550, y1: y });

/** A three-column statement between a top rule, an inner rule under its header and a bottom rule. */
function statement(leading: TextRun[]): TextRun[] {
  return [
    ...leading,
    run('Year Ended June 30,', 55, 670), run('2016', 400, 670, 20), run('2015', 480, 670, 20),
    run('Revenue', 55, 650), run('85,320', 400, 650, 30), run('93,580', 480, 650, 30),
    run('Cost of revenue', 55, 638), run('32,780', 400, 638, 30), run('33,038', 480, 638, 30),
    run('Gross margin', 55, 626), run('52,540', 400, 626, 30), run('60,542', 480, 626, 30),
  ];
}
const rules = [rule(710), rule(662), rule(618)];

test('tables: a title drawn inside the top rule is left to the text flow, not joined into the header', () => {
  const runs = statement([run('INCOME STATEMENTS', 55, 698), run('(In millions, except per share amounts)', 55, 686)]);
  const [t] = findTables(runs, rules, [], 10);
  assert.ok(t, 'the statement is read as a table');
  assert.deepEqual(t.rows[0], ['Year Ended June 30,', '2016', '2015']);
  assert.deepEqual(t.rows.map((r) => r[0]), ['Year Ended June 30,', 'Revenue', 'Cost of revenue', 'Gross margin']);
  assert.ok(!t.used.has(0) && !t.used.has(1), 'the title lines stay in the text flow');
  assert.equal(t.used.size, runs.length - 2);
  assert.ok(t.top < 686, `the table is placed below its title (top ${t.top})`);
});

test('tables: a header row of several cells above the first inner rule stays the header', () => {
  const runs = statement([run('Segment', 55, 686), run('Fiscal', 400, 686, 25), run('Fiscal', 480, 686, 25)]);
  const [t] = findTables(runs, rules, [], 10);
  assert.ok(t);
  // (A row of years is data, never header: pdf-tables.ts readRegion.)
  assert.deepEqual(t.rows.slice(0, 2), [['Segment', 'Fiscal', 'Fiscal'], ['Year Ended June 30,', '2016', '2015']]);
  assert.equal(t.used.size, runs.length);
});
