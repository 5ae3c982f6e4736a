import { printErr } from '../log/terminal.ts';
/**
 * Reads passwords typed on the terminal without echoing them: stdin in raw mode, one key at a time,
 * the prompts on stderr so stdout stays clean for scripts. All answers are read in one raw session,
 * so keys typed (or pasted) ahead of the next prompt are kept, not lost.
 */

/** One answer per prompt, or null when the user pressed Ctrl-C or Ctrl-D. */
export function promptPasswords(prompts: readonly string[]): Promise<string[] | null> {
  const stdin = process.stdin;
  const answers: string[] = [];
  let typed = '';
  // Echo off before the prompt shows: a key typed as soon as it appears must not be echoed.
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  printErr(prompts[0] ?? '');
  return new Promise((resolve) => {
    const finish = (result: string[] | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      resolve(result);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          printErr('\n');
          answers.push(typed);
          typed = '';
          if (answers.length === prompts.length) return finish(answers);
          printErr(prompts[answers.length]!);
        } else if (ch === '\u0003' || ch === '\u0004') {
          // Ctrl-C and Ctrl-D: raw mode swallows the signal, so stop here as the user asked.
          printErr('\n');
          return finish(null);
        } else if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}
