import { createHash } from 'node:crypto';
import { readJsonlAll } from '@xsb/core';
import { ANSWERABILITY_SYSTEM, CLAIM_EXTRACTION_SYSTEM, CLAIM_VERIFICATION_SYSTEM } from '@xsb/eval';
import { replayKeyFor, replayStoreLineSchema } from '@xsb/llm';
import type { FakeLlmReply, FakeLlmRequest } from '@xsb/llm/testing';

/** A stable yes/no from text: the same prompt always gets the same answer, online or in a batch. */
const leansYes = (text: string): boolean => (createHash('sha256').update(text).digest()[0] ?? 0) % 3 !== 0;

/** The JSON between a label and the answer-format line of an xsb prompt. */
function jsonAfter(text: string, label: RegExp): unknown {
  const start = label.exec(text);
  if (!start) return undefined;
  const rest = text.slice(start.index + start[0].length);
  const end = rest.indexOf('\n\nAnswer with JSON only');
  return JSON.parse(end >= 0 ? rest.slice(0, end) : rest);
}

/** One claim per slide: its first line after the title, as a model would pick a fact. */
function claimsOf(deckText: string): Array<{ slide: number; claim: string }> {
  const claims: Array<{ slide: number; claim: string }> = [];
  for (const block of deckText.split(/\n(?=\[Slide \d+\])/)) {
    const [header, , body] = block.split('\n');
    const slide = Number(/\[Slide (\d+)\]/.exec(header ?? '')?.[1]);
    if (Number.isInteger(slide) && body && body.trim().length > 20)
      claims.push({ slide, claim: body.trim() });
  }
  return claims.slice(0, 6);
}

/** A deck outline a planner could write: the source's sentences, three to a slide, in order. */
function outlineOf(prompt: string): unknown {
  const source = /<source>\n([\s\S]*?)\n<\/source>/.exec(prompt)?.[1] ?? '';
  const sentences = source
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence.split(' ').length >= 5)
    .map((sentence) => sentence.split(' ').slice(0, 18).join(' '));
  const slides = [];
  for (let i = 0; i + 3 <= sentences.length && slides.length < 4; i += 3)
    slides.push({ title: `Part ${slides.length + 1}`, bullets: sentences.slice(i, i + 3) });
  return {
    title: sentences[0]?.split(' ').slice(0, 6).join(' ') ?? 'Source',
    subtitle: 'Scripted outline',
    slides,
  };
}

/**
 * A scripted model judge for the pipeline's prompts (stage 5 answerability, claim extraction and
 * verification; rubric checklist items; the stage 4 deck planner), answering from the request alone, so an online run and a
 * `--batch` run (or a record → fill → replay round) get the very same answers.
 */
export function scriptedPipelineJudge(request: FakeLlmRequest): FakeLlmReply {
  const { system, text } = request;
  if (system.startsWith(ANSWERABILITY_SYSTEM)) {
    const probes = jsonAfter(text, /PROBES \(\d+\):\n/) as Array<{
      probe_id: string;
      expected_answer: string;
    }>;
    return {
      text: JSON.stringify({
        judgments: probes.map((probe) => {
          const covered = leansYes(`${probe.probe_id}|${text.length}`);
          return {
            probe_id: probe.probe_id,
            covered,
            answer: covered ? probe.expected_answer : '',
            cited_evidence: covered ? 'Slide 2' : '',
            confidence: covered ? 0.9 : 0.6,
          };
        }),
      }),
    };
  }
  if (system.startsWith(CLAIM_EXTRACTION_SYSTEM)) {
    const deck = /<deck>\n([\s\S]*)\n<\/deck>/.exec(text)?.[1] ?? '';
    return { text: JSON.stringify({ claims: claimsOf(deck) }) };
  }
  if (system.startsWith(CLAIM_VERIFICATION_SYSTEM)) {
    const claims = jsonAfter(text, /CLAIMS WITH SOURCE SNIPPETS:\n/) as Array<{
      claim_id: string;
      claim: string;
    }>;
    return {
      text: JSON.stringify({
        verdicts: claims.map((claim) => ({
          claim_id: claim.claim_id,
          label: leansYes(claim.claim) ? 'supported' : 'unsupported',
          rationale: 'scripted',
        })),
      }),
    };
  }
  if (text.includes('\\boxed'))
    return { text: `Checked against the slides. \\boxed{${leansYes(text) ? 'yes' : 'no'}}` };
  if (system.startsWith('You plan presentation slide decks'))
    return { text: JSON.stringify(outlineOf(text)) };
  return { text: 'This scripted judge does not know this prompt.' };
}

type WireBlock = { type?: string; text?: string };
type WireMessage = { role: string; content: string | WireBlock[] };

/** The text parts of a wire message as the pipeline's ChatMessage (a replay key ignores cache marks). */
function chatMessageOf(message: WireMessage): {
  role: 'user' | 'assistant';
  content: string | Array<{ type: 'text'; text: string }>;
} {
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  if (typeof message.content === 'string') return { role, content: message.content };
  return {
    role,
    content: message.content.map((block) => ({ type: 'text' as const, text: block.text ?? '' })),
  };
}

/**
 * A model judge that answers every pipeline prompt (probes, weights, the deck planner, stage 5) with
 * the completion a replay store holds for it, found by the prompt's replay key, and every other
 * prompt (decks the store never saw) as `otherwise` does — so a model-judged `xsb demo` (online or
 * `--batch`) runs every stage through a provider client with valid answers.
 */
export async function replayStoreJudge(
  storeFile: string,
  otherwise: (request: FakeLlmRequest) => FakeLlmReply = scriptedPipelineJudge,
): Promise<(request: FakeLlmRequest) => FakeLlmReply> {
  const completions = new Map(
    (await readJsonlAll(storeFile, replayStoreLineSchema)).map((line) => [line.key, line.completion]),
  );
  return (request) => {
    const body = request.body as { system?: string | WireBlock[]; messages?: WireMessage[] };
    const wire = body.messages ?? [];
    const systemOf = (value: string | WireBlock[] | undefined) =>
      typeof value === 'string' ? value : (value ?? []).map((block) => block.text ?? '').join('');
    const system =
      request.provider === 'anthropic'
        ? systemOf(body.system)
        : wire
            .filter((m) => m.role === 'system' || m.role === 'developer')
            .map((m) => systemOf(m.content))
            .join('\n');
    const messages = wire.filter((m) => m.role === 'user' || m.role === 'assistant').map(chatMessageOf);
    const key = replayKeyFor({ ...(system ? { system } : {}), messages });
    const completion = completions.get(key);
    return completion === undefined ? otherwise(request) : { text: completion };
  };
}
