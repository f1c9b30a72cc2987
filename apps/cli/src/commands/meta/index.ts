import type { CommandModule } from '../../command-module';
import { registerAgreement } from './agreement-command';
import { registerAnchorsCheck } from './anchors-check-command';
import { registerAnchorsFreeze } from './anchors-freeze-command';
import { registerPerturb } from './perturb-command';
import { registerSensitivity } from './sensitivity-command';

/** `xsb meta`: does each evaluator notice what it claims to measure (issue 12)? */
export const metaCommand: CommandModule = {
  name: 'meta',
  register(program, context) {
    const meta = program
      .command('meta')
      .description(
        'meta-evaluation: perturb decks, measure each evaluator’s sensitivity, judge agreement and drift anchors',
      );
    registerPerturb(meta, context);
    registerSensitivity(meta, context);
    registerAgreement(meta, context);
    const anchors = meta
      .command('anchors')
      .description('drift anchors: freeze a judge’s verdicts, check another judge against them');
    registerAnchorsFreeze(anchors, context);
    registerAnchorsCheck(anchors, context);
  },
};
