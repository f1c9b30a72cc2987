import type { Probe } from '@xsb/core';
import { type CompletionRequest, extractJson } from '@xsb/llm';
import type { AudienceProfile } from './schemas/audience-profile';
import type { UtilityJudgment } from './utility-judge';

const UTILITY_JUDGE_SYSTEM = `You rate how useful knowing the answer to each probe is for one audience of a presentation about a source document.

Use this scale (any value in between is allowed, it will be rounded to the nearest step):
- 1.0: essential; a presentation for this audience that leaves it out fails them.
- 0.6: clearly useful; it belongs in a good presentation for this audience.
- 0.3: marginal; nice to have, fine to leave out.
- 0.0: irrelevant or a distraction for this audience.

Judge each probe independently, only from the audience's needs. Answer with a JSON array only, one object per probe, using the probe ids exactly as given:
[{"probe_id": "pb_0001", "utility": 0.6, "rationale": "one short sentence"}]`;

/** Sampling temperature of utility judgments: the k samples are meant to be independent. */
const UTILITY_JUDGE_TEMPERATURE = 0.7;

/** The request judging one batch for one audience; the sample index is the seed, so the k samples differ. */
export function buildUtilityJudgmentRequest(
  audience: AudienceProfile,
  probes: readonly Probe[],
  sampleIndex: number,
): CompletionRequest {
  const listing = probes.map((probe) => ({
    probe_id: probe.probe_id,
    question: probe.question,
    answer: probe.answer,
    level: probe.level,
    modality: probe.modality,
    theme: probe.theme,
  }));
  return {
    system: UTILITY_JUDGE_SYSTEM,
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `Audience "${audience.id}": ${audience.description}`,
            cacheBreakpoint: true,
          },
          {
            type: 'text',
            text: `Rate these ${probes.length} probes for this audience:\n${JSON.stringify(listing, null, 2)}`,
          },
        ],
      },
    ],
    temperature: UTILITY_JUDGE_TEMPERATURE,
    seed: sampleIndex,
    maxTokens: 4000,
    stage: 'weights',
  };
}

/** The follow-up asking again for the ids the answer left out or judged invalidly. */
export function buildUtilityCorrection(missing: readonly string[]): string {
  return `Your answer did not give a valid utility (a number from 0 to 1) for these probe ids: ${missing.join(', ')}. Reply with ONLY a JSON array of {"probe_id", "utility", "rationale"} objects for exactly these ids.`;
}

export interface ParsedUtilityAnswer {
  judgments: Map<string, UtilityJudgment>;
  /** Ids the answer gave that are not in the batch (ignored). */
  unknownIds: string[];
}

/** Reads a judgment answer (accepted shapes: README, LLM judge); the first valid entry of an id wins. */
export function parseUtilityAnswer(text: string, batchIds: ReadonlySet<string>): ParsedUtilityAnswer {
  const value = extractJson(text);
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? (Object.values(value as Record<string, unknown>).find(Array.isArray) ?? [])
      : [];
  const parsed: ParsedUtilityAnswer = { judgments: new Map(), unknownIds: [] };
  for (const entry of list as unknown[]) {
    if (!entry || typeof entry !== 'object') continue;
    const record = entry as Record<string, unknown>;
    const id = typeof record.probe_id === 'string' ? record.probe_id.trim() : undefined;
    if (!id) continue;
    if (!batchIds.has(id)) {
      parsed.unknownIds.push(id);
      continue;
    }
    if (parsed.judgments.has(id)) continue;
    const raw = record.utility ?? record.utility_weight ?? record.weight ?? record.value;
    const number = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || number > 1) continue;
    const rationale =
      typeof record.rationale === 'string'
        ? record.rationale.trim()
        : typeof record.reason === 'string'
          ? record.reason.trim()
          : '';
    parsed.judgments.set(id, { value: number, rationale });
  }
  return parsed;
}
