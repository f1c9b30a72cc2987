import { describe, expect, it } from 'vitest';
import { BulletRegister, jaccard, NEAR_COPY_JACCARD, normaliseText, textTokens } from './near-duplicate-text';

describe('normaliseText', () => {
  it('applies NFKC, lower case, drops punctuation and collapses whitespace', () => {
    expect(normaliseText('  Ｒａｆｔ   elects a LEADER!  ')).toBe('raft elects a leader');
    expect(normaliseText('“Huardest gefburn”? Kjift – not at all!')).toBe(
      'huardest gefburn kjift not at all',
    );
  });
});

describe('textTokens', () => {
  it('splits words at spaces and Han/Kana runs into character bigrams', () => {
    expect([...textTokens('The log, the log.')]).toEqual(['the', 'log']);
    expect([...textTokens('珊瑚白化')]).toEqual(['珊瑚', '瑚白', '白化']);
    expect([...textTokens('Raft 共识')]).toEqual(['raft', '共识']);
  });
});

describe('BulletRegister', () => {
  it('refuses a bullet equal after normalisation, or a near-copy at Jaccard >= 0.9', () => {
    const register = new BulletRegister();
    const sentence =
      'A blind text like this gives you information about the selected font, how the letters are written and an impression of the look.';
    expect(register.add(sentence)).toBe(true);
    expect(register.add(sentence.toUpperCase().replace(/\./, '!'))).toBe(false);
    // A page number caught in the sentence: 21 of 22 tokens shared (0.95).
    const withPageNumber = sentence.replace('gives', 'gives 2');
    expect(jaccard(textTokens(sentence), textTokens(withPageNumber))).toBeGreaterThanOrEqual(
      NEAR_COPY_JACCARD,
    );
    expect(register.add(withPageNumber)).toBe(false);
    expect(register.add('…')).toBe(false);
  });

  it('keeps bullets that share words but say something else (below 0.9)', () => {
    const register = new BulletRegister();
    expect(register.add('Average bills fell by 410 dollars per home.')).toBe(true);
    // 7 of 9 tokens shared: 0.78
    expect(register.add('Average bills fell by 90 dollars per flat.')).toBe(true);
  });

  it('compares Chinese bullets by character bigrams', () => {
    const register = new BulletRegister();
    expect(register.add('当海水连续数周过热时，珊瑚会排出藻类并变成白色。')).toBe(true);
    expect(register.add('当海水连续数周过热时，珊瑚会排出藻类并变成白色！')).toBe(false);
    // Without the comma one bigram more (时珊): 20 of 21 shared.
    expect(register.add('当海水连续数周过热时珊瑚会排出藻类并变成白色')).toBe(false);
    expect(register.add('卫星每天测量热带地区每一处珊瑚礁上方的海面温度。')).toBe(true);
  });
});
