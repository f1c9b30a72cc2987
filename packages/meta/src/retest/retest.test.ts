import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { correctnessSchema, hashBytes, RunLayout, readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import {
  ANSWERABILITY_SYSTEM,
  CLAIM_EXTRACTION_SYSTEM,
  CLAIM_VERIFICATION_SYSTEM,
  defaultFixturesDir,
  runDemo,
  runEvaluation,
} from '@xsb/eval';
import { createLlmClient, judgeFromClient } from '@xsb/llm';
import {
  type FakeLlmRequest,
  type FakeLlmServer,
  fakeProviderEnv,
  startFakeLlmServer,
} from '@xsb/llm/testing';
import {
  evaluateOrReuse,
  evaluateRepeats,
  evaluationFilesFor,
  loadRubricInstance,
  readMaterials,
  retestFileFor,
} from '@xsb/rubric';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimKey } from '../agreement/read-verdict-set';
import { metaRetestSchema } from '../schemas/meta-retest';
import { EVALUATION_RETEST_FILE, evaluationRetest } from './evaluation-retest';
import { rubricRetest } from './rubric-retest';

/** About a quarter of the ids: the items whose answer the scripted judge changes on repeat 2. */
const planted = (id: string) => Number.parseInt(hashBytes(`plant:${id}`).slice(0, 2), 16) % 4 === 0;

/**
 * A scripted model: the same answer to the same prompt on its first two asks; on the third ask
 * (repeat 2) it changes its answer for the planted probes, claims and checklist items, and records
 * each change, so the test knows exactly how many verdicts flipped.
 */
function scriptedJudge() {
  const asks = new Map<string, number>();
  const changed = { probes: new Set<string>(), claims: new Set<string>(), items: new Set<string>() };
  const handler = (request: FakeLlmRequest) => {
    const prompt = hashBytes(`${request.system}\u0000${request.text}`);
    const ask = asks.get(prompt) ?? 0;
    asks.set(prompt, ask + 1);
    const change = (id: string, into: Set<string>) => {
      if (ask !== 2 || !planted(id)) return false;
      into.add(`${prompt}|${id}`);
      return true;
    };
    if (request.system === ANSWERABILITY_SYSTEM) {
      const ids = [...request.text.matchAll(/"probe_id": "([^"]+)"/g)].map((match) => match[1]!);
      const judgments = ids.map((id) => ({
        probe_id: id,
        covered: planted(`base:${id}`) !== change(id, changed.probes),
        answer: 'scripted',
        cited_evidence: 'Slide 1',
        confidence: 0.9,
      }));
      return { text: JSON.stringify({ judgments }) };
    }
    if (request.system === CLAIM_EXTRACTION_SYSTEM) {
      const claims: Array<{ slide: number; claim: string }> = [];
      const seen = new Set<string>();
      let slide = 0;
      for (const line of request.text.split('\n')) {
        const header = /^\[Slide (\d+)\]$/.exec(line.trim());
        const text = line.trim();
        if (header) slide = Number(header[1]);
        else if (slide > 0 && text.split(/\s+/).length >= 4 && !seen.has(text.toLowerCase())) {
          seen.add(text.toLowerCase());
          claims.push({ slide, claim: text });
        }
      }
      return { text: JSON.stringify({ claims: claims.slice(0, 40) }) };
    }
    if (request.system === CLAIM_VERIFICATION_SYSTEM) {
      const payload = JSON.parse(
        /CLAIMS WITH SOURCE SNIPPETS:\n([\s\S]*?)\n\nAnswer with JSON only/.exec(request.text)![1]!,
      ) as Array<{ claim_id: string; claim: string }>;
      const verdicts = payload.map(({ claim_id, claim }) => ({
        claim_id,
        label: change(claim, changed.claims) ? 'unsupported' : 'supported',
        rationale: 'scripted',
      }));
      return { text: JSON.stringify({ verdicts }) };
    }
    // A rubric checklist item: one question per prompt.
    const no = planted(`base:${prompt}`) !== change(prompt, changed.items);
    return { text: `Judged. \\boxed{${no ? 'no' : 'yes'}}` };
  };
  return { handler, asks, changed };
}

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
let server: FakeLlmServer;
let script: ReturnType<typeof scriptedJudge>;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-retest-'));
  ({ dataDir } = await runDemo({ outDir: join(dir, 'demo') }));
  script = scriptedJudge();
  server = await startFakeLlmServer({ handler: script.handler });
}, 120_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

describe('test–retest of stage 5 (openai SDK, fake server)', () => {
  const judge = 'openai:gpt-retest';
  const evaluate = () =>
    runEvaluation({
      dataDir,
      run: 'demo',
      judge,
      repeats: 3,
      filters: { systems: ['xsb-baseline'] },
      env: fakeProviderEnv(server),
      cacheDir: join(dir, 'cache'),
    });
  const file = () => join(new RunLayout(dataDir).evaluationsRoot('demo'), EVALUATION_RETEST_FILE);

  it('asks every prompt once per repeat and reports exactly the planted flips', async () => {
    const outcome = await evaluate();
    expect(outcome.results.every((r) => r.outcome === 'evaluated')).toBe(true);
    // An agnostic deck's other audiences reuse each repeat's rows (as the ordinary ask does).
    const repeatOutcomes = outcome.results.flatMap((r) => (r.repeats ?? []).map((x) => x.outcome));
    expect(repeatOutcomes).toHaveLength(outcome.results.length * 2);
    expect(new Set(repeatOutcomes)).toEqual(new Set(['evaluated', 'reused']));
    // Repeats 1 and 2 were not answered from repeat 0's cache entry: each prompt reached the server 3 times.
    expect(script.asks.size).toBeGreaterThan(20);
    expect([...script.asks.values()].every((count) => count === 3)).toBe(true);

    const retest = await evaluationRetest({
      results: outcome.results,
      judge,
      deterministic: false,
      repeats: 3,
      file: file(),
      scope: { run: 'demo' },
    });
    expect(await readJson(file(), metaRetestSchema)).toEqual(retest);
    const byClass = Object.fromEntries(retest.classes.map((row) => [row.class, row]));
    // n: one item per probe of each deck (agnostic decks once, not per audience) and per claim.
    const decks = new Set(outcome.results.map((r) => r.job.deckFile));
    const probes = async (caseLabel: string) =>
      (await readFile(new RunLayout(dataDir).probesFile(caseLabel), 'utf8')).trim().split('\n').length;
    let probeItems = 0;
    for (const deck of decks)
      probeItems += await probes(outcome.results.find((r) => r.job.deckFile === deck)!.job.caseLabel);
    expect(byClass.probe_coverage).toMatchObject({
      n: probeItems,
      flipped: script.changed.probes.size,
    });
    expect(script.changed.probes.size).toBeGreaterThan(5);
    expect(byClass.probe_coverage!.flip_rate).toBeCloseTo(script.changed.probes.size / probeItems, 12);
    // Claims: every planted claim of every deck flips on repeat 2 — also where two decks share a
    // verification prompt, whose repeat-2 answer the second deck gets from the response cache.
    let plantedClaims = 0;
    let claimItems = 0;
    for (const deck of decks) {
      const first = outcome.results.find((r) => r.job.deckFile === deck)!;
      const { claims } = await readJson(join(first.evaluationDir, 'correctness.json'), correctnessSchema);
      const texts = new Map(claims.map((claim) => [claimKey(claim.text), claim.text]));
      claimItems += texts.size;
      plantedClaims += [...texts.values()].filter(planted).length;
    }
    expect(byClass.claim_label).toMatchObject({ n: claimItems, flipped: plantedClaims });
    expect(plantedClaims).toBeGreaterThanOrEqual(script.changed.claims.size);
    expect(script.changed.claims.size).toBeGreaterThan(3);
    const f = script.changed.probes.size / probeItems;
    // Pairs (0,1) agree everywhere; (0,2) and (1,2) disagree exactly on the flipped items.
    expect(byClass.probe_coverage!.mean_pairwise_agreement).toBeCloseTo(1 - (2 * f) / 3, 12);
    expect(retest).toMatchObject({
      repeats: 3,
      deterministic: false,
      incomplete: 0,
      failures: [],
      note: null,
    });
    expect(retest.flips).toHaveLength(script.changed.probes.size + plantedClaims);
    expect(
      retest.flips.every((flip) => flip.values[0] === flip.values[1] && flip.values[1] !== flip.values[2]),
    ).toBe(true);
  }, 120_000);

  it('asks nothing again on a second run and writes the same retest.json', async () => {
    const before = await readFile(file());
    const requests = server.requests.length;
    const outcome = await evaluate();
    expect(server.requests.length).toBe(requests);
    expect(outcome.results.every((r) => r.outcome === 'reused')).toBe(true);
    expect(outcome.results.every((r) => r.repeats?.every((x) => x.outcome === 'reused'))).toBe(true);
    await evaluationRetest({
      results: outcome.results,
      judge,
      deterministic: false,
      repeats: 3,
      file: file(),
      scope: { run: 'demo' },
    });
    expect(Buffer.compare(await readFile(file()), before)).toBe(0);
  }, 120_000);
});

describe('test–retest of a rubric evaluation (anthropic SDK, fake server)', () => {
  it('reports exactly the checklist items whose answer changed on repeat 2', async () => {
    await cp(join(defaultFixturesDir(), 'meta', 'rubric'), join(dataDir, 'rubric'), { recursive: true });
    const instance = await loadRubricInstance(join(dataDir, 'rubric', 'cs_raft_consensus', 'instance.yaml'));
    const layout = new RunLayout(dataDir);
    const deckFile = join(
      layout.deckDir({
        run: 'demo',
        system: 'xsb-baseline',
        condition: 'audience_agnostic',
        audience: 'all',
        caseLabel: 'cs_raft_consensus',
      }),
      'cs_raft_consensus.pptx',
    );
    const judgeId = 'anthropic:claude-retest';
    const client = createLlmClient(judgeId, { env: fakeProviderEnv(server), cacheDir: join(dir, 'cache') });
    const options = {
      instance,
      deck: await readDeck(deckFile),
      materials: await readMaterials(instance.materials),
      judge: judgeFromClient(judgeId, client),
    };
    const files = evaluationFilesFor(deckFile, judgeId);
    script.changed.items.clear();
    await evaluateOrReuse(options, files);
    const repeats = await evaluateRepeats(options, files.evaluation, 3);
    expect(repeats.map((r) => [r.repeat, r.outcome])).toEqual([
      [1, 'evaluated'],
      [2, 'evaluated'],
    ]);
    const retest = await rubricRetest({
      evaluationFile: files.evaluation,
      repeats,
      judge: judgeId,
      deterministic: false,
      file: retestFileFor(files.evaluation),
      scope: { deck: 'cs_raft_consensus.pptx', instance: instance.id },
    });
    const judged = repeats[0]!.evaluation!.items.filter(
      (item) => item.kind === 'llm' && !item.decided_by_check,
    );
    expect(retest.overall).toMatchObject({ n: judged.length, flipped: script.changed.items.size });
    expect(script.changed.items.size).toBeGreaterThan(0);
    expect(retest.classes.every((row) => row.class.startsWith('rubric.'))).toBe(true);
    expect(retest.classes.reduce((sum, row) => sum + row.flipped, 0)).toBe(script.changed.items.size);
  }, 120_000);
});
