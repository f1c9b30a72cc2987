import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildZip, probeScoreSchema, readJsonlAll, type StageEvent } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiDataLayout } from './api-data-layout';
import type { JobRunner } from './job-runner';
import type { StoredJob } from './job-store';
import { apiEvaluationResultSchema, apiRubricResultSchema } from './schemas/api-result';
import { SqliteJobStore } from './sqlite-job-store';
import { startJobWorker } from './start-job-worker';
import { type SubmitJobRequest, submitJob } from './submit-job';
import { FIXTURE_CASE, fixtureDeck, writeJobsFixture } from './testing';

const APPENDIX = fileURLToPath(new URL('../../../fixtures/rubric/appendix-cs-overview-ch1', import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
let store: SqliteJobStore;
let worker: JobRunner | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-jobs-submit-'));
  dataDir = join(dir, 'data');
  await writeJobsFixture(dataDir, 14);
  store = new SqliteJobStore(new ApiDataLayout(dataDir).databaseFile(), { pollMs: 20 });
});
afterEach(async () => {
  await worker?.drain(5000);
  worker = undefined;
  await store.close();
  await cleanup();
});

let uploads = 0;
async function upload(bytes: Buffer): Promise<string> {
  const file = join(dir, `upload-${uploads++}.bin`);
  await writeFile(file, bytes);
  return file;
}

async function submit(request: SubmitJobRequest, bytes: Buffer = fixtureDeck('v1')) {
  return submitJob(request, {
    store,
    dataDir,
    env: {},
    submittedBy: 'ci',
    deck: { file: await upload(bytes), filename: 'slides.pptx' },
  });
}

async function finished(id: string): Promise<StoredJob> {
  for (let i = 0; i < 500; i++) {
    const job = await store.get(id);
    if (job && ['done', 'failed', 'canceled'].includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${id} did not finish`);
}

function failure(run: () => Promise<unknown>): Promise<{ code?: string; message: string; field?: unknown }> {
  return run().then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: { code?: string; message: string; details?: { field?: unknown } }) => ({
      code: error.code,
      message: error.message,
      field: error.details?.field,
    }),
  );
}

const evaluation = (fields: Record<string, unknown> = {}): SubmitJobRequest => ({
  kind: 'evaluation',
  fields: { system: 'gen', case: FIXTURE_CASE, ...fields },
});

describe('submitJob and the evaluation handler', () => {
  it('evaluates an uploaded agnostic deck for every valid audience, with the artifacts of xsb eval', async () => {
    const submitted = await submit(evaluation());
    expect(submitted.outcome).toBe('created');
    const job = submitted.job;
    expect(job.request).toMatchObject({
      run: 'api',
      condition: 'audience_agnostic',
      audiences: ['learners', 'decision_makers'],
      judge: 'lexical',
      deck: { format: 'pptx', filename: 'slides.pptx' },
    });
    const staged = new ApiDataLayout(dataDir).upload(job.id, 'pptx');
    expect(existsSync(staged)).toBe(true);
    expect((await submit(evaluation())).outcome).toBe('duplicate');
    expect(await readdir(new ApiDataLayout(dataDir).uploadsDir())).toEqual([`${job.id}.pptx`]);

    const events: Array<[string, StageEvent]> = [];
    worker = startJobWorker({ store, dataDir, env: {}, onEvent: (id, event) => events.push([id, event]) });
    const done = await finished(job.id);
    expect(done.status).toBe('done');
    // The evaluation's stage events reach the job's event stream (the API's SSE `stage` events).
    expect(events.every(([id]) => id === job.id)).toBe(true);
    expect(
      events.filter(([, e]) => e.type === 'stage-finished' && e.stage.startsWith('eval.')).length,
    ).toBeGreaterThan(0);
    await expect.poll(() => existsSync(staged)).toBe(false);
    const result = apiEvaluationResultSchema.parse(await store.result(job.id));
    expect(result).toMatchObject({
      judge: 'lexical',
      judge_kind: 'offline',
      deck: { path: 'runs/api/decks/gen/audience_agnostic/all/pilot/deck.pptx' },
    });
    expect(result.evaluations.map((e) => [e.audience, e.outcome])).toEqual([
      ['learners', 'evaluated'],
      ['decision_makers', 'evaluated'],
    ]);
    for (const item of result.evaluations) {
      const folder = join(dataDir, item.evaluation_dir);
      expect(item.metrics?.audience).toBe(item.audience);
      expect(JSON.parse(await readFile(join(folder, 'metrics.json'), 'utf8'))).toEqual(item.metrics);
      expect(JSON.parse(await readFile(join(folder, 'status.json'), 'utf8')).status).toBe('done');
      expect(await readJsonlAll(join(folder, 'probe_scores.jsonl'), probeScoreSchema)).toHaveLength(14);
      expect(existsSync(join(folder, 'run_manifest.json'))).toBe(true);
      expect(
        existsSync(join(dataDir, 'runs/api/metrics/gen__audience_agnostic', item.audience, 'pilot.json')),
      ).toBe(true);
    }

    // Once the first is done, the same deck is a new job, answered from the finished artifacts.
    const again = await submit(evaluation());
    expect(again.outcome).toBe('created');
    const reused = apiEvaluationResultSchema.parse(
      (await finished(again.job.id)).status === 'done' ? await store.result(again.job.id) : null,
    );
    expect(reused.evaluations.map((e) => e.outcome)).toEqual(['reused', 'reused']);
  });

  it('files a conditioned deck under its audience and refuses another deck there while it is active', async () => {
    const first = await submit(evaluation({ condition: 'audience_conditioned', audiences: ['learners'] }));
    expect(first.outcome).toBe('created');
    const busy = await submit(
      evaluation({ condition: 'audience_conditioned', audiences: ['learners'] }),
      fixtureDeck('v2'),
    );
    expect(busy).toMatchObject({ outcome: 'location_busy', job: { id: first.job.id } });
    expect(await readdir(new ApiDataLayout(dataDir).uploadsDir())).toEqual([`${first.job.id}.pptx`]);
    worker = startJobWorker({ store, dataDir, env: {} });
    expect((await finished(first.job.id)).status).toBe('done');
    expect(
      existsSync(join(dataDir, 'runs/api/decks/gen/audience_conditioned/learners/pilot/deck.pptx')),
    ).toBe(true);
    expect(existsSync(join(dataDir, 'runs/api/evaluations/gen/audience_conditioned/decision_makers'))).toBe(
      false,
    );
  });

  it('refuses bad fields with an error naming the field, before anything is stored', async () => {
    expect(await failure(() => submit(evaluation({ case: 'nope' })))).toMatchObject({
      code: 'unknown_case',
      field: 'case',
      message: 'field "case": unknown case "nope" (known: pilot)',
    });
    expect(await failure(() => submit(evaluation({ audiences: ['learners', 'pilots'] })))).toMatchObject({
      code: 'unknown_audience',
      field: 'audiences',
      message: expect.stringContaining('"pilots" for case "pilot" (valid: decision_makers, learners)'),
    });
    expect(
      await failure(() => submit(evaluation({ condition: 'audience_conditioned', audiences: [] }))),
    ).toMatchObject({ field: 'audiences', message: expect.stringContaining('exactly one (got 2)') });
    for (const [field, value] of [
      ['system', '..'],
      ['system', 'a/b'],
      ['run', 'x..y'],
      ['case', 'café'],
      ['system', ''],
    ] as const) {
      expect(await failure(() => submit(evaluation({ [field]: value }))), `${field}=${value}`).toMatchObject({
        code: 'invalid_field',
        field,
      });
    }
    expect(await failure(() => submit(evaluation({ condition: 'both' })))).toMatchObject({
      field: 'condition',
    });
    // Outside the replay folder, a server file, a folder, a missing store: one answer, naming no path.
    await mkdir(join(dataDir, 'replay/folder.jsonl'), { recursive: true });
    await writeFile(join(dataDir, 'secret.jsonl'), 'top secret line\n');
    const answers = new Set<string>();
    for (const judge of [
      'replay:../outside.jsonl',
      'replay:secret.jsonl',
      'replay:api/jobs.sqlite',
      'replay:folder.jsonl',
      'replay:missing.jsonl',
      'replay:.hidden.jsonl',
      `replay:${dataDir}/secret.jsonl`,
    ]) {
      const error = await failure(() => submit(evaluation({ judge })));
      expect(error, judge).toMatchObject({ field: 'judge', code: 'invalid_field' });
      answers.add(error.message);
      expect(error.message).not.toContain(dataDir);
      expect(error.message).not.toContain('top secret');
    }
    expect(answers.size).toBe(1);
    expect(await failure(() => submit(evaluation({ judge: 'record:store.jsonl' })))).toMatchObject({
      field: 'judge',
    });
    expect(await failure(() => submit(evaluation({ judge: 'anthropic:claude-x' })))).toMatchObject({
      code: 'judge_unavailable',
      field: 'judge',
      message: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
    expect(existsSync(new ApiDataLayout(dataDir).uploadsDir())).toBe(false);
    expect((await store.list({ limit: 10 })).jobs).toEqual([]);
  });

  it('knows a deck by its content: a renamed ZIP that is no presentation is refused, a PDF accepted', async () => {
    const docx = buildZip([{ name: 'word/document.xml', data: '<w:document/>' }]);
    expect(await failure(() => submit(evaluation(), docx))).toMatchObject({
      code: 'unsupported_media_type',
    });
    const pdf = await submit(
      evaluation(),
      Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n'),
    );
    expect(pdf.job.request.deck).toMatchObject({ format: 'pdf' });
    expect((await store.list({ limit: 10 })).jobs).toHaveLength(1);
  });

  it("accepts a replay store of the data folder's replay/ folder, recorded by its name", async () => {
    await mkdir(join(dataDir, 'replay'), { recursive: true });
    await writeFile(join(dataDir, 'replay/store.jsonl'), '');
    const submitted = await submit(evaluation({ judge: 'replay:store.jsonl' }));
    expect(submitted.job.request.judge).toBe('replay:store.jsonl');
    const prefixed = await submit(evaluation({ judge: 'replay:replay/store.jsonl', system: 'other' }));
    expect(prefixed.job.request.judge).toBe('replay:store.jsonl');
  });
});

describe('the rubric handler', () => {
  it('judges an uploaded deck against an instance under rubric/instances with the offline judge', async () => {
    await cp(APPENDIX, join(dataDir, 'rubric/instances/appendix-cs'), { recursive: true });
    expect(
      await failure(() =>
        submit({ kind: 'rubric_evaluation', fields: { instance: 'other', system: 'gen' } }),
      ),
    ).toMatchObject({ code: 'unknown_instance', message: expect.stringContaining('known: appendix-cs') });
    const submitted = await submit({
      kind: 'rubric_evaluation',
      fields: { instance: 'appendix-cs', system: 'gen' },
    });
    const events: StageEvent[] = [];
    worker = startJobWorker({ store, dataDir, env: {}, onEvent: (_id, event) => events.push(event) });
    const job = await finished(submitted.job.id);
    expect(job.status).toBe('done');
    expect(job.progress).toMatchObject({ phase: 'judging_items' });
    expect(events.filter((e) => e.stage === 'rubric.item').map((e) => e.type)).toEqual(
      expect.arrayContaining(['stage-started', 'unit-done', 'stage-finished']),
    );
    const result = apiRubricResultSchema.parse(await store.result(job.id));
    expect(result).toMatchObject({
      instance: 'appendix-cs',
      judge: 'lexical',
      judge_kind: 'offline',
      deck: { path: 'rubric/results/gen/appendix-cs/generation_task/results/slides.pptx' },
      reused: false,
      scores: { paper: { total_percent: null } },
    });
    expect(result.item_count).toBeGreaterThan(50);
    expect(existsSync(join(dataDir, result.evaluation_file))).toBe(true);
    expect(existsSync(join(dataDir, result.presentbench_result_file))).toBe(true);
  });
});
