import { DESIGN_METRICS } from '@xsb/design';
import type { SUMMARY_METRICS } from '@xsb/metrics';
import { LAYOUT_CHECK_IDS, RUBRIC_DIMENSIONS } from '@xsb/rubric';
import type { PerturbationKind } from './schemas/meta-perturbation';

/** The X+Slides metrics of stage 6 (named by @xsb/metrics' SUMMARY_METRICS), as evaluator ids, in meta's report order. */
export const XSLIDES_EVALUATORS = [
  'xslides.coverage',
  'xslides.correctness',
  'xslides.efficiency_time',
  'xslides.efficiency_slide',
  'xslides.efficiency_word',
  'xslides.safe_efficiency_time',
] as const satisfies ReadonlyArray<`xslides.${(typeof SUMMARY_METRICS)[number]}`>;

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

/** The deck-level design metrics of @xsb/design (means over the slides), computed from the rendered slides. */
export const DESIGN_EVALUATORS = DESIGN_METRICS.map((metric) => `design.${metric}`);

/** Every evaluator id `xsb meta sensitivity` scores, in report order. */
export const EVALUATOR_IDS: readonly string[] = [
  ...XSLIDES_EVALUATORS,
  ...RUBRIC_EVALUATORS,
  ...LAYOUT_EVALUATORS,
  ...HOLISTIC_EVALUATORS,
  ...DESIGN_EVALUATORS,
];

export const EVALUATOR_FAMILIES = ['xslides', 'rubric', 'layout', 'holistic', 'design'] as const;
export type EvaluatorFamily = (typeof EVALUATOR_FAMILIES)[number];

/**
 * The families scored unless asked otherwise. `design` renders every deck (LibreOffice for PPTX, seconds a
 * deck), so it is asked for by name; its measurements are then cached beside each deck.
 */
export const DEFAULT_EVALUATOR_FAMILIES: readonly EvaluatorFamily[] = [
  'xslides',
  'rubric',
  'layout',
  'holistic',
];

export function evaluatorFamily(id: string): EvaluatorFamily {
  return id.slice(0, id.indexOf('.')) as EvaluatorFamily;
}

/** The kinds that change length only: the controls for "noticed it through word or slide count". */
export const LENGTH_CONTROL_KINDS: readonly PerturbationKind[] = ['pad_words', 'duplicate_slides'];

const layout = (...ids: string[]) => ids.map((id) => `layout.${id}`);
const layoutExcept = (...ids: string[]) => LAYOUT_EVALUATORS.filter((id) => !ids.includes(id.slice(7)));
const CONTENT_RUBRIC = ['rubric.completeness', 'rubric.correctness', 'rubric.fidelity'];

type ExpectedEffects = { lower: string[]; unchanged: string[] };

const FACT_DAMAGE: ExpectedEffects = {
  lower: [
    'xslides.correctness',
    'xslides.safe_efficiency_time',
    'rubric.correctness',
    'rubric.fidelity',
    'rubric.total',
  ],
  unchanged: [...LAYOUT_EVALUATORS, 'rubric.design'],
};

/** Stands for the layout checks an `overflow_text` deck breaks, known only once it is made. */
const OVERFLOW_PLACEHOLDER = '<overflow checks>';

const EXPECTED_EFFECTS: Record<PerturbationKind, ExpectedEffects> = {
  drop_slides: {
    lower: [
      'xslides.coverage',
      'rubric.completeness',
      'rubric.total',
      'holistic.content',
      'holistic.overall',
    ],
    unchanged: ['xslides.correctness'],
  },
  shuffle_slides: {
    lower: ['rubric.fundamentals', 'rubric.total', 'holistic.coherence', 'holistic.overall'],
    unchanged: [
      ...XSLIDES_EVALUATORS,
      ...LAYOUT_EVALUATORS,
      'rubric.design',
      'rubric.completeness',
      'rubric.correctness',
    ],
  },
  corrupt_numbers: FACT_DAMAGE,
  swap_facts: FACT_DAMAGE,
  inject_claims: {
    lower: FACT_DAMAGE.lower,
    unchanged: ['xslides.coverage', ...layoutExcept('bullets_per_slide', 'source_attribution')],
  },
  remove_citations: {
    lower: ['layout.source_attribution'],
    unchanged: [
      'xslides.coverage',
      'xslides.correctness',
      ...layoutExcept('bullets_per_slide', 'source_attribution'),
      'rubric.design',
    ],
  },
  shrink_fonts: {
    lower: ['layout.min_font_size', 'rubric.design', 'rubric.total', 'holistic.design', 'holistic.overall'],
    unchanged: [...XSLIDES_EVALUATORS, ...layoutExcept('min_font_size'), ...CONTENT_RUBRIC],
  },
  overflow_text: {
    lower: [OVERFLOW_PLACEHOLDER, 'rubric.design', 'rubric.total', 'holistic.design', 'holistic.overall'],
    unchanged: [...XSLIDES_EVALUATORS, ...layoutExcept('text_overlap', 'off_slide'), ...CONTENT_RUBRIC],
  },
  pad_words: {
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
      ...LAYOUT_EVALUATORS,
      ...CONTENT_RUBRIC,
    ],
  },
  duplicate_slides: {
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
  },
};

/**
 * What each kind of damage should do, stated before anything is scored: `lower` must fall, `unchanged`
 * must stay within tolerance; scores in neither (e.g. coverage under corrupted numbers, which depends on
 * the probes) are not judged for that kind.
 */
export function expectedEffects(
  kind: PerturbationKind,
  overflowChecks: readonly ('off_slide' | 'text_overlap')[] = ['off_slide', 'text_overlap'],
): ExpectedEffects {
  const effects = EXPECTED_EFFECTS[kind];
  const expand = (ids: string[]) =>
    ids.flatMap((id) => (id === OVERFLOW_PLACEHOLDER ? layout(...overflowChecks) : [id]));
  return { lower: expand(effects.lower), unchanged: expand(effects.unchanged) };
}
