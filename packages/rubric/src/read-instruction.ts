import { countScripts } from './script-detection';

/**
 * PresentBench instances carry no language field; its dataset is English with a Chinese subset
 * (spec 001, table 2), so an instruction written mostly in Han characters is `zh`, anything else `en`.
 */
export function detectInstructionLanguage(instruction: string): string {
  const counts = countScripts(instruction);
  const han = counts.get('Han') ?? 0;
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  return total > 0 && han / total >= 0.3 ? 'zh' : 'en';
}

/**
 * True when the instruction demands a source on every slide, as in the appendix instance
 * ("**Every slide** must explicitly indicate which textbook chapter(s) and section(s)...").
 */
export function detectSourceAttributionRequirement(instruction: string): boolean {
  const plain = instruction.replace(/\*+/g, '');
  return (
    /\b(every|each) slide\b[^.\n]{0,120}\b(source|section|chapter|attribution|cite|citation|reference)/i.test(
      plain,
    ) || /每(一)?页[^。\n]{0,40}(来源|出处|章节)/.test(plain)
  );
}
