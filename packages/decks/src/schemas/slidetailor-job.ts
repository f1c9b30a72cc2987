import { z } from 'zod';

/** SlideTailor builds each deck directly from the source paper and the reference template. */
export const SLIDETAILOR_TEMPLATE_MODE = 'source_template_generation';

/** `preferences/<job>.json`: the preference guidelines SlideTailor applies to one deck. */
export const slidetailorPreferenceSchema = z.looseObject({
  case_label: z.string().min(1),
  condition: z.enum(['audience_agnostic', 'audience_conditioned']),
  audience: z.string().min(1),
  template_mode: z.literal(SLIDETAILOR_TEMPLATE_MODE),
  preference_guidelines: z.string(),
});

/** `configs/<job>.json`: everything one SlideTailor invocation needs, as absolute paths. */
export const slidetailorConfigSchema = z.looseObject({
  job_id: z.string().min(1),
  paper_path: z.string().min(1),
  preference_path: z.string().min(1),
  template_mode: z.literal(SLIDETAILOR_TEMPLATE_MODE),
  template_path: z.string(),
  output_dir: z.string().min(1),
  output_deck_path: z.string().min(1),
});
