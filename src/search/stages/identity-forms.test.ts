import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nameInitialisms } from './identity-forms.ts';

const JNJ = 'FOR IMMEDIATE RELEASE (JOHNSON JOHNSON 2022Q4 EARNINGS)';

test('nameInitialisms: an initialism of the label is replaced by the label words it stands for', () => {
  assert.equal(nameInitialisms("What was JnJ's worldwide sales growth in Q4 2022?", JNJ), "What was JOHNSON JOHNSON's worldwide sales growth in Q4 2022?");
  assert.equal(nameInitialisms('Did J&J and JnJ report it?', JNJ), 'Did JOHNSON JOHNSON and JOHNSON JOHNSON report it?');
  assert.equal(nameInitialisms('AMD revenue', 'Advanced Micro Devices 2022 10K'), 'Advanced Micro Devices revenue');
});

test('nameInitialisms: initialisms the label does not allow, and words that only contain one, stay as written', () => {
  assert.equal(nameInitialisms("What was P&G's margin?", JNJ), "What was P&G's margin?");
  assert.equal(nameInitialisms('What was JnJ growth?', 'Annual Report of Johnson & Johnson'), 'What was JnJ growth?', 'an initialism names from the start of a run');
  assert.equal(nameInitialisms('How did sales grow?', JNJ), 'How did sales grow?');
  assert.equal(nameInitialisms('What was the AR balance?', 'Annual Report 2022', new Set(['AR'])), 'What was the AR balance?', 'a short form the documents define keeps its meaning');
  assert.equal(nameInitialisms('What was the AR balance?', 'Annual Report 2022'), 'What was the Annual Report balance?');
});
