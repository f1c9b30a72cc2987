import type { Slide } from '@xsb/core';

/** The visible text of one slide, with its title first when the parser kept it apart. */
export function slideVisibleText(slide: Slide): string {
  const body = slide.visible_text.trim();
  const title = slide.title.trim();
  if (!title || body.includes(title)) return body;
  return body ? `${title}\n${body}` : title;
}
