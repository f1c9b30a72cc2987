import { describe, expect, it } from 'vitest';
import { createEvalJudge, evalJudgeCapabilities } from './eval-judge';

describe('evalJudgeCapabilities', () => {
  it('says what the judge createEvalJudge builds can do, without building it', () => {
    expect(evalJudgeCapabilities('lexical')).toEqual({ readsImages: false });
    expect(evalJudgeCapabilities(' lexical ')).toEqual({ readsImages: false });
    // No key, no store on disk: nothing is built, nothing is read.
    expect(evalJudgeCapabilities('anthropic:claude-x')).toEqual({ readsImages: true });
    expect(evalJudgeCapabilities('replay:/no/such/store.jsonl')).toEqual({ readsImages: true });
    for (const spec of ['lexical', 'record:/no/such/store.jsonl'])
      expect(createEvalJudge(spec).readsImages).toBe(evalJudgeCapabilities(spec).readsImages);
  });
});
