import { createHash } from 'node:crypto';
import type { FakeLlmHandler, FakeLlmRequest } from '@xsb/llm/testing';

/** A stable number in [0, 1) from text: the simulated judge's only source of variety. */
function unit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

function between(text: string, start: string, end: string): string | undefined {
  const from = text.indexOf(start);
  if (from < 0) return undefined;
  const to = text.indexOf(end, from + start.length);
  return to < 0 ? undefined : text.slice(from + start.length, to);
}

/** The JSON array after the last `marker` (the request's last part), up to `end` when given. */
function jsonAfter(text: string, marker: string, end?: string): unknown {
  const from = text.lastIndexOf(marker);
  if (from < 0) return undefined;
  const open = text.indexOf('[', from);
  const close = end === undefined ? text.length : text.lastIndexOf(end);
  if (open < 0 || close < open) return undefined;
  try {
    return JSON.parse(text.slice(open, close));
  } catch {
    return undefined;
  }
}

/** Sentences of a source that can be quoted verbatim (the grounding step looks them up). */
function quotableSentences(source: string): string[] {
  return source
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length >= 40 && sentence.length <= 300 && /[a-z]/i.test(sentence));
}

function probesAnswer(request: FakeLlmRequest, perChunk: number): string {
  const source = between(request.text, '<source>\n', '\n</source>') ?? '';
  const sentences = quotableSentences(source);
  const probes = sentences.slice(0, perChunk).map((sentence) => {
    const words = sentence.split(/\s+/);
    return {
      question: `What does the source state about ${words.slice(0, 6).join(' ')}?`,
      answer: words.slice(0, 12).join(' '),
      evidence: [{ locator: 'paragraph 1', text: sentence }],
      level: 1 + Math.floor(unit(sentence) * 3),
      modality: 'text',
      theme: ['result', 'method', 'definition', 'impact'][Math.floor(unit(`t${sentence}`) * 4)],
    };
  });
  return JSON.stringify(probes);
}

function utilityAnswer(request: FakeLlmRequest): string {
  const listing = jsonAfter(request.text, 'probes for this audience:\n') as
    | Array<{ probe_id: string }>
    | undefined;
  const audience = between(request.text, 'Audience "', '"') ?? '';
  const steps = [0, 0.3, 0.6, 1];
  return JSON.stringify(
    (listing ?? []).map((probe) => ({
      probe_id: probe.probe_id,
      utility: steps[Math.floor(unit(`${audience}${probe.probe_id}`) * 4)],
      rationale: 'Relevant to what this audience needs to decide.',
    })),
  );
}

function answerabilityAnswer(request: FakeLlmRequest): string {
  const probes = jsonAfter(request.text, 'PROBES (', '\n\nAnswer with JSON only') as
    | Array<{ probe_id: string; expected_answer?: string }>
    | undefined;
  return JSON.stringify({
    judgments: (probes ?? []).map((probe) => {
      const covered = unit(`${request.text.length}${probe.probe_id}`) < 0.55;
      return {
        probe_id: probe.probe_id,
        covered,
        answer: covered ? (probe.expected_answer ?? '') : '',
        cited_evidence: covered ? 'Slide 2' : '',
        confidence: 0.8,
      };
    }),
  });
}

function claimsAnswer(request: FakeLlmRequest): string {
  const deck = between(request.text, '<deck>\n', '\n</deck>') ?? '';
  const max = Number(/List at most (\d+)/.exec(request.text)?.[1] ?? 40);
  const claims: Array<{ slide: number; claim: string }> = [];
  let slide = 1;
  for (const line of deck.split('\n')) {
    const marker = /^\[Slide (\d+)\]/.exec(line);
    if (marker) {
      slide = Number(marker[1]);
      continue;
    }
    if (line.trim().split(/\s+/).length >= 5 && claims.length < max)
      claims.push({ slide, claim: line.trim() });
  }
  return JSON.stringify({ claims });
}

function verificationAnswer(request: FakeLlmRequest): string {
  const items = jsonAfter(request.text, 'CLAIMS WITH SOURCE SNIPPETS:\n', '\n\nAnswer with JSON only') as
    | Array<{ claim_id: string }>
    | undefined;
  return JSON.stringify({
    verdicts: (items ?? []).map((item) => ({
      claim_id: item.claim_id,
      label: unit(item.claim_id) < 0.8 ? 'supported' : 'unsupported',
      rationale: 'The snippets state it.',
    })),
  });
}

function outlineAnswer(request: FakeLlmRequest): string {
  const sentences = quotableSentences(between(request.text, '<source>\n', '\n</source>') ?? '');
  const slides = Array.from({ length: 5 }, (_, i) => ({
    title: `Part ${i + 1}`,
    bullets: sentences.slice(i * 3, i * 3 + 3).map((s) => s.split(/\s+/).slice(0, 18).join(' ')),
  })).filter((slide) => slide.bullets.length >= 2);
  return JSON.stringify({ title: 'Overview', subtitle: 'From the source', slides });
}

export interface StageAnswerOptions {
  /** Probes written per generation request (default 20), or per case (the prompt's `Case:` line). */
  probesPerChunk?: number | ((caseId: string) => number);
}

/**
 * A fake-server handler that answers every judged step of xsb with a well-formed, deterministic
 * answer to the very prompt it gets (probe generation quotes the source verbatim; utility,
 * answerability and verification answer every id asked; claims are the deck's bullet lines; rubric
 * items end with `\boxed{yes|no}`), so whole stages run through the real SDKs offline. It is a
 * simulator for plans, tests and scale runs, not a judge: its verdicts mean nothing.
 */
export function stageAnswerHandler(options: StageAnswerOptions = {}): FakeLlmHandler {
  const perChunk = options.probesPerChunk ?? 20;
  return (request) => {
    const { system } = request;
    if (system.startsWith('You write probes')) {
      const caseId = /^Case: (.*)$/m.exec(request.text)?.[1] ?? '';
      return { text: probesAnswer(request, typeof perChunk === 'number' ? perChunk : perChunk(caseId)) };
    }
    if (system.startsWith('You rate how useful')) return { text: utilityAnswer(request) };
    if (system.startsWith('You are a strict evaluator')) return { text: answerabilityAnswer(request) };
    if (system.startsWith('You extract atomic factual claims')) return { text: claimsAnswer(request) };
    if (system.startsWith('You verify claims')) return { text: verificationAnswer(request) };
    if (system.startsWith('You plan presentation slide decks')) return { text: outlineAnswer(request) };
    const verdict = unit(request.text.slice(-400)) < 0.7 ? 'yes' : 'no';
    return { text: `The slides address the requirement on Slide 2.\n\nFinal verdict: \\boxed{${verdict}}` };
  };
}
