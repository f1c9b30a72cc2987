import type { ChatMessage } from './completion-types';

/** Where a request marks the end of a shared prefix: `[message index, part index]`, in prompt order. */
export function cacheBreakpoints(messages: ChatMessage[]): Array<[message: number, part: number]> {
  const marked: Array<[number, number]> = [];
  messages.forEach((message, m) => {
    if (typeof message.content !== 'string')
      message.content.forEach((part, p) => {
        if (part.cacheBreakpoint) marked.push([m, p]);
      });
  });
  return marked;
}
