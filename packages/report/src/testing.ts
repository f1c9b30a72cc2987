import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

/** Where the browser tests look for Chromium: `CHROMIUM_PATH`, else Debian's (`apt-get install chromium`; `.ci/run` installs it). */
export const chromiumPath = (env: NodeJS.ProcessEnv = process.env): string =>
  env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or null when they can. Under `CI=true` a missing Chromium is a
 * failure (thrown, so the test file fails with this message), not a skip: CI installs it.
 */
export function chromiumUnavailableReason(env: NodeJS.ProcessEnv = process.env): string | null {
  const path = chromiumPath(env);
  if (existsSync(path)) return null;
  const reason = `Chromium not found at ${path} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (env.CI === 'true') throw new Error(`${reason}; CI=true must run the browser tests`);
  return reason;
}

/** The flags that keep headless Chromium quiet on a machine without network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export interface OpenedReport {
  page: Page;
  /** Console messages of type error, and uncaught page errors. */
  errors: string[];
  /** Every request other than the report itself (each one was blocked). */
  requests: string[];
  /** Dialogs (alert, confirm, prompt) the page tried to open. */
  dialogs: string[];
}

export interface HeadlessBrowser {
  /** Opens a report (file path or http URL) at 1400×900 with every other request blocked and counted. */
  open(target: string): Promise<OpenedReport>;
  close(): Promise<void>;
}

/**
 * Headless Chromium through playwright-core with a fresh profile folder. Every request that is not the
 * page itself is aborted and recorded, so a test can assert that a report asks for nothing.
 */
export async function launchHeadlessBrowser(): Promise<HeadlessBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'xsb-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  return {
    async open(target) {
      const url = /^https?:\/\//.test(target) ? target : pathToFileURL(target).href;
      const page = await context.newPage();
      const opened: OpenedReport = { page, errors: [], requests: [], dialogs: [] };
      await page.route('**/*', async (route) => {
        const requested = route.request().url();
        if (requested === url || requested.split('#')[0] === url.split('#')[0]) return route.continue();
        opened.requests.push(requested);
        return route.abort();
      });
      page.on('console', (message) => {
        if (message.type() === 'error') opened.errors.push(message.text());
      });
      page.on('pageerror', (error) => opened.errors.push(error.message));
      page.on('dialog', async (dialog) => {
        opened.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        await dialog.dismiss();
      });
      await page.goto(url, { waitUntil: 'load' });
      return opened;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** The repository's `fixtures/` folder (from src/ or dist/ alike). */
export function fixturesDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures');
}

/** Text a hostile deck carries: every way it could try to run code in a report. */
export const HOSTILE_TEXT = [
  '<script>window.__xsbInjected = 1; alert(1)</script>',
  '<img src=x onerror="window.__xsbInjected = 2; alert(2)">',
  '"><svg onload="alert(3)">',
].join(' ');

/**
 * One source case (`hostile_case/source.txt`) whose text, and so its probes, deck, judge answers and
 * claims, holds script and event-handler markup. Returns the sources folder for `runDemo({sourcesDir})`.
 */
export async function writeHostileSources(dir: string): Promise<string> {
  const sources = join(dir, 'hostile-sources');
  const caseDir = join(sources, 'hostile_case');
  await mkdir(caseDir, { recursive: true });
  const paragraph = (topic: string) =>
    `The ${topic} of the Harbor Lantern project rose by 42 percent in 2024 ${HOSTILE_TEXT}. ` +
    `Engineers measured the ${topic} at 17 stations along the coast and reported 3 failures.`;
  await writeFile(
    join(caseDir, 'source.txt'),
    `Harbor Lantern report ${HOSTILE_TEXT}\n\n${['budget', 'output', 'staffing', 'maintenance'].map(paragraph).join('\n\n')}\n`,
  );
  await writeFile(
    join(caseDir, 'source_metadata.json'),
    JSON.stringify({
      title: `Harbor Lantern ${HOSTILE_TEXT}`,
      scene: 'policy_briefing',
      category: 'infrastructure',
      topic: 'lighthouses',
      language: 'en',
      valid_audiences: ['specialists', 'learners', 'decision_makers'],
      metadata: { fictional: true },
    }),
  );
  return sources;
}

/**
 * Rubric results of two systems over the PresentBench fixture tree (`fixtures/rubric/presentbench-layout`):
 * `genA` (the clean deck) and `genB` (the deck with planted layout defects), judged through the real
 * OpenAI client against the loopback fake server, whose answers cite slides. Returns the results root.
 */
export async function prepareRubricResults(dir: string): Promise<string> {
  const { createLlmClient, judgeFromClient } = await import('@xsb/llm');
  const { fakeProviderEnv, startFakeLlmServer } = await import('@xsb/llm/testing');
  const { runRubric } = await import('@xsb/rubric');
  const { writeLayoutFixtureDecks } = await import('@xsb/rubric/testing');
  const root = join(dir, 'rubric-results');
  await mkdir(join(dir, 'rubric-decks'), { recursive: true });
  const decks = await writeLayoutFixtureDecks(join(dir, 'rubric-decks'));
  let call = 0;
  const server = await startFakeLlmServer({
    handler: () => {
      call += 1;
      const slide = (call % 3) + 1;
      return call % 4 === 0
        ? { text: `Slide ${slide} lacks it: the bullets run past the limit ${HOSTILE_TEXT}. \\boxed{no}` }
        : { text: `Slides ${slide} and ${slide + 1} show the required content. \\boxed{yes}` };
    },
  });
  try {
    const instancesDir = join(fixturesDir(), 'rubric', 'presentbench-layout', 'data');
    for (const [system, deck] of [
      ['genA', decks.clean],
      ['genB', decks.defects],
    ] as const) {
      const results = join(root, system);
      const deckDir = join(results, 'education/Computer_science_lectures/ch1_bits/generation_task/results');
      await mkdir(deckDir, { recursive: true });
      await copyFile(deck, join(deckDir, 'slides.pptx'));
      await runRubric({
        instancesDir,
        resultsDir: results,
        judge: judgeFromClient(
          'openai:gpt-report',
          createLlmClient('openai:gpt-report', { env: fakeProviderEnv(server), noCache: true }),
        ),
      });
    }
  } finally {
    await server.close();
  }
  return root;
}

/**
 * A pipeline run of `decks` decks with `slides` slides each (the report's size figure: 20 × 15), made
 * with the real stages: the demo pipeline (offline) on 20 source cases (`fixtures/bench/sources` and two
 * demo cases) gives probes and weights; each case then gets one PPTX of `slides` slides built from its
 * source sentences (`@xsb/decks`' `writeOutlinePptx`), evaluated (stages 5–6) and aggregated (stage 7) as
 * run `synthetic`. Returns the data folder.
 */
export async function prepareSyntheticRun(
  outDir: string,
  options: { decks?: number; slides?: number } = {},
): Promise<string> {
  const { runDemo, runEvaluation } = await import('@xsb/eval');
  const { writeOutlinePptx } = await import('@xsb/decks');
  const { runAggregation } = await import('@xsb/metrics');
  const { RunLayout } = await import('@xsb/core');
  const deckCount = options.decks ?? 20;
  const slideCount = options.slides ?? 15;
  const sources = join(outDir, 'synthetic-sources');
  await mkdir(sources, { recursive: true });
  const benchSources = join(fixturesDir(), 'bench', 'sources');
  const candidates = [
    ...(await readdir(benchSources)).sort().map((name) => join(benchSources, name)),
    join(fixturesDir(), 'sources', 'cs_raft_consensus'),
    join(fixturesDir(), 'sources', 'ocean_coral_bleaching'),
  ].slice(0, deckCount);
  for (const from of candidates) await cp(from, join(sources, from.split('/').at(-1)!), { recursive: true });
  const { dataDir } = await runDemo({ outDir, sourcesDir: sources });
  const layout = new RunLayout(dataDir);
  for (const from of candidates) {
    const caseLabel = from.split('/').at(-1)!;
    const text = await readFile(layout.sourceContextFile(caseLabel), 'utf8');
    const sentences = text
      .split(/(?<=[.!?])\s+/)
      .map((sentence) =>
        sentence
          .replace(/\s+/g, ' ')
          .replace(/^#+\s*/, '')
          .trim(),
      )
      .filter((sentence) => sentence.split(' ').length >= 5)
      .map((sentence) => sentence.slice(0, 160));
    const slides = Array.from({ length: slideCount - 1 }, (_, index) => ({
      title: `Part ${index + 1}`,
      bullets: [0, 1, 2].map(
        (offset) => sentences[(index * 3 + offset) % Math.max(1, sentences.length)] ?? 'No text.',
      ),
    }));
    const deckDir = layout.deckDir({
      run: 'synthetic',
      system: 'synthetic',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel,
    });
    await mkdir(deckDir, { recursive: true });
    await writeOutlinePptx(
      { title: `Synthetic deck: ${caseLabel}`, subtitle: '', slides },
      join(deckDir, `${caseLabel}.pptx`),
    );
  }
  await runEvaluation({ dataDir, run: 'synthetic' });
  await runAggregation([layout.runDir('synthetic')], layout.summaryDir('synthetic'));
  return dataDir;
}
