import { createHash } from 'node:crypto';
import { ANSWERABILITY_SYSTEM, CLAIM_EXTRACTION_SYSTEM, CLAIM_VERIFICATION_SYSTEM } from '@xsb/eval';
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

/**
 * A scripted model judge for the pipeline's prompts (stage 5 answerability, claim extraction and
 * verification; rubric checklist items), answering from the request alone, so an online run and a
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
  return { text: 'This scripted judge does not know this prompt.' };
}
