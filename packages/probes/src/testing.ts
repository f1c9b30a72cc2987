import { createSeededRandom } from '@xsb/core';
import type { DedupInput } from './deduplicate-probes';
import type { GeneratedProbe, GenerationInput, GenerationOutput, ProbeGenerator } from './generated-probe';

/**
 * A synthetic probe union like a real one: `count` probes over `count / 4` base facts drawn from a
 * vocabulary of `vocabulary` words, where about a third are near-duplicates of an earlier probe (a word
 * or two of question, answer or evidence changed) and the rest fresh, so both dedup branches fire.
 */
export function makeSyntheticProbes(count: number, seed = 1, vocabulary = 5000): DedupInput[] {
  const random = createSeededRandom(seed);
  const word = (): string => `w${Math.floor(random() ** 2 * vocabulary)}`;
  const words = (n: number): string[] => Array.from({ length: n }, word);
  const mutate = (tokens: string[], changes: number): string[] => {
    const copy = [...tokens];
    for (let i = 0; i < changes; i += 1) copy[Math.floor(random() * copy.length)] = word();
    return copy;
  };
  const probes: Array<DedupInput & { parts: { q: string[]; a: string[]; e: string[] } }> = [];
  for (let i = 0; i < count; i += 1) {
    const base =
      probes.length > 0 && random() < 0.35 ? probes[Math.floor(random() * probes.length)] : undefined;
    const q = base
      ? mutate(base.parts.q, Math.floor(random() * 2))
      : ['what', 'is', ...words(6 + Math.floor(random() * 8))];
    const a = base ? mutate(base.parts.a, Math.floor(random() * 2)) : words(1 + Math.floor(random() * 6));
    const e = base ? mutate(base.parts.e, Math.floor(random() * 4)) : words(12 + Math.floor(random() * 20));
    probes.push({
      question: `${q.join(' ')}?`,
      answer: a.join(' '),
      evidence: [{ text: e.join(' ') }],
      parts: { q, a, e },
    });
  }
  return probes.map(({ question, answer, evidence }) => ({ question, answer, evidence }));
}

/**
 * A generator that answers from a script keyed by chunk and sample index (`"<chunk>:<generation>"`),
 * for tests that need hand-computable banks without a model. Missing keys answer with no probes.
 */
export class ScriptedProbeGenerator implements ProbeGenerator {
  readonly calls: Array<{ chunkIndex: number; generationIndex: number; chunkText: string }> = [];

  readonly fingerprint = 'scripted';

  constructor(
    private readonly script: Record<string, GeneratedProbe[] | Error>,
    readonly id = 'scripted',
  ) {}

  async generate(input: GenerationInput): Promise<GenerationOutput> {
    this.calls.push({
      chunkIndex: input.chunkIndex,
      generationIndex: input.generationIndex,
      chunkText: input.chunkText,
    });
    const answer = this.script[`${input.chunkIndex}:${input.generationIndex}`] ?? [];
    if (answer instanceof Error) throw answer;
    return {
      probes: answer,
      malformed: 0,
      exchanges: [
        { request: { chunk: input.chunkIndex, generation: input.generationIndex }, response: answer },
      ],
    };
  }
}
