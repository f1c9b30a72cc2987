import { type PerturbationKind, RUBRIC_DIMENSIONS } from '@xsb/core';
import { LAYOUT_CHECK_IDS } from '@xsb/rubric';

/** The X+Slides metrics of stage 6, as evaluator ids. */
export const XSLIDES_EVALUATORS = [
  'xslides.coverage',
  'xslides.correctness',
  'xslides.efficiency_time',
  'xslides.efficiency_slide',
  'xslides.efficiency_word',
  'xslides.safe_efficiency_time',
] as const;

export const RUBRIC_EVALUATORS = [
  'rubric.total',
  ...RUBRIC_DIMENSIONS.map((dimension) => `rubric.${dimension}`),
] as const;

export const LAYOUT_EVALUATORS = LAYOUT_CHECK_IDS.map((id) => `layout.${id}`);

export const HOLISTIC_EVALUATORS = [
  'holistic.overall',
  'holistic.content',
  'holistic.design',
  'holistic.coherence',
] as const;

/** Every evaluator id `xsb meta sensitivity` scores, in report order. */
export const EVALUATOR_IDS: readonly string[] = [
  ...XSLIDES_EVALUATORS,
  ...RUBRIC_EVALUATORS,
  ...LAYOUT_EVALUATORS,
  ...HOLISTIC_EVALUATORS,
];

export type EvaluatorFamily = 'xslides' | 'rubric' | 'layout' | 'holistic';

export function evaluatorFamily(id: string): EvaluatorFamily {
  return id.slice(0, id.indexOf('.')) as EvaluatorFamily;
}

/** The kinds that change length only: the controls for "noticed it through word or slide count". */
export const LENGTH_CONTROL_KINDS: readonly PerturbationKind[] = ['pad_words', 'duplicate_slides'];

const layout = (...ids: string[]) => ids.map((id) => `layout.${id}`);
const ALL_XSLIDES = [...XSLIDES_EVALUATORS];
const TEXT_GEOMETRY_UNCHANGED = layout(
  'slide_count',
  'min_font_size',
  'text_overlap',
  'off_slide',
  'empty_slide',
  'language',
);

/**
 * What each kind of damage should do, stated before anything is scored. `lower`: a score that
 * measures what the kind damages must fall. `unchanged`: a score that does not measure it must stay
 * within its tolerance. Scores in neither list are not judged for that kind (e.g. coverage under
 * corrupted numbers may rightly fall, or not, depending on the probes). `overflow_text` names the
 * check(s) its boxes actually break (see `overflowChecks`).
 */
export function expectedEffects(
  kind: PerturbationKind,
  overflowChecks: readonly ('off_slide' | 'text_overlap')[] = ['off_slide', 'text_overlap'],
): { lower: string[]; unchanged: string[] } {
  switch (kind) {
    case 'drop_slides':
      return {
        lower: [
          'xslides.coverage',
          'rubric.completeness',
          'rubric.total',
          'holistic.content',
          'holistic.overall',
        ],
        unchanged: ['xslides.correctness'],
      };
    case 'shuffle_slides':
      return {
        lower: ['rubric.fundamentals', 'rubric.total', 'holistic.coherence', 'holistic.overall'],
        unchanged: [
          ...ALL_XSLIDES,
          ...LAYOUT_EVALUATORS,
          'rubric.design',
          'rubric.completeness',
          'rubric.correctness',
        ],
      };
    case 'corrupt_numbers':
    case 'swap_facts':
      return {
        lower: [
          'xslides.correctness',
          'xslides.safe_efficiency_time',
          'rubric.correctness',
          'rubric.fidelity',
          'rubric.total',
        ],
        unchanged: [...LAYOUT_EVALUATORS, 'rubric.design'],
      };
    case 'inject_claims':
      return {
        lower: [
          'xslides.correctness',
          'xslides.safe_efficiency_time',
          'rubric.correctness',
          'rubric.fidelity',
          'rubric.total',
        ],
        unchanged: ['xslides.coverage', ...TEXT_GEOMETRY_UNCHANGED],
      };
    case 'remove_citations':
      return {
        lower: ['layout.source_attribution'],
        unchanged: ['xslides.coverage', 'xslides.correctness', ...TEXT_GEOMETRY_UNCHANGED, 'rubric.design'],
      };
    case 'shrink_fonts':
      return {
        lower: [
          'layout.min_font_size',
          'rubric.design',
          'rubric.total',
          'holistic.design',
          'holistic.overall',
        ],
        unchanged: [
          ...ALL_XSLIDES,
          ...layout(
            'slide_count',
            'bullets_per_slide',
            'text_overlap',
            'off_slide',
            'empty_slide',
            'language',
            'source_attribution',
          ),
          'rubric.completeness',
          'rubric.correctness',
          'rubric.fidelity',
        ],
      };
    case 'overflow_text':
      return {
        lower: [
          ...layout(...overflowChecks),
          'rubric.design',
          'rubric.total',
          'holistic.design',
          'holistic.overall',
        ],
        unchanged: [
          ...ALL_XSLIDES,
          ...layout(
            'slide_count',
            'bullets_per_slide',
            'min_font_size',
            'empty_slide',
            'language',
            'source_attribution',
          ),
          'rubric.completeness',
          'rubric.correctness',
          'rubric.fidelity',
        ],
      };
    case 'pad_words':
      return {
        lower: [
          'xslides.efficiency_time',
          'xslides.efficiency_word',
          'xslides.safe_efficiency_time',
          'rubric.fundamentals',
          'rubric.total',
          'holistic.content',
          'holistic.overall',
        ],
        unchanged: [
          'xslides.coverage',
          'xslides.correctness',
          'xslides.efficiency_slide',
          ...layout(
            'slide_count',
            'bullets_per_slide',
            'min_font_size',
            'text_overlap',
            'off_slide',
            'empty_slide',
            'language',
            'source_attribution',
          ),
          'rubric.completeness',
          'rubric.correctness',
          'rubric.fidelity',
        ],
      };
    case 'duplicate_slides':
      return {
        lower: [
          'xslides.efficiency_time',
          'xslides.efficiency_slide',
          'xslides.efficiency_word',
          'xslides.safe_efficiency_time',
          'rubric.fundamentals',
          'rubric.total',
          'holistic.content',
          'holistic.overall',
        ],
        unchanged: ['xslides.coverage', 'xslides.correctness', 'rubric.completeness', 'rubric.correctness'],
      };
  }
}
