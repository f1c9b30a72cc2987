import type { Probe } from '@xsb/core';

/** One answerability judgment: can the deck answer the probe, with what, citing which slide. */
export interface ProbeJudgment {
  probe_id: string;
  covered: boolean;
  answer: string;
  cited_evidence: string;
  confidence: number;
}

/** How the answerability judge sees the deck: extracted text, or rendered slide images. */
export type JudgeInputMode = 'text' | 'image';

/** The probe fields a judge receives (spec 000: ids, questions, answers, evidence, levels, modalities, themes). */
export function probeForJudge(probe: Probe) {
  return {
    probe_id: probe.probe_id,
    question: probe.question,
    expected_answer: probe.answer,
    evidence: probe.evidence.map((e) => (e.locator ? `${e.locator}: ${e.text}` : e.text)),
    level: probe.level,
    modality: probe.modality,
    theme: probe.theme,
  };
}

/** Uncovered with zero confidence: for a probe the judge skipped, or one with nothing to check. */
export function uncoveredJudgment(probeId: string): ProbeJudgment {
  return { probe_id: probeId, covered: false, answer: '', cited_evidence: '', confidence: 0 };
}
