import { describe, expect, it } from 'vitest';
import { createEvalJudge, evalJudgeCapabilities } from './eval-judge';

describe('evalJudgeCapabilities', () => {
  it('says what the judge createEvalJudge builds can do, without building it', () => {
    expect(evalJudgeCapabilities('lexical')).toMatchObject({ readsImages: false });
    expect(evalJudgeCapabilities(' lexical ')).toMatchObject({ readsImages: false });
    // No key, no store on disk: nothing is built, nothing is read.
    expect(evalJudgeCapabilities('anthropic:claude-x')).toMatchObject({ readsImages: true });
    expect(evalJudgeCapabilities('replay:/no/such/store.jsonl')).toMatchObject({ readsImages: true });
    for (const spec of ['lexical', 'record:/no/such/store.jsonl']) {
      const judge = createEvalJudge(spec);
      expect(judge.capabilities).toEqual(evalJudgeCapabilities(spec));
      expect(judge.kind).toBe(spec === 'lexical' ? 'offline' : 'model');
    }
  });
});
