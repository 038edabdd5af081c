import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** One fenced code block of a Markdown document. */
export interface ReadmeBlock {
  /** The info string's first word (`ts`, `bash`, `json`, …); `''` when there is none. */
  readonly lang: string;
  /** The `file=<path>` attribute of the info string, if any: where the block belongs in the app. */
  readonly file?: string;
  /** The info string's other words (e.g. `['env']` for `bash env`). */
  readonly flags: readonly string[];
  /** The block's text, verbatim, ending with a newline. */
  readonly code: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** The README section users copy into their app. */
export const USE_IT_HEADING = 'Use it in your app';

const FENCE = /^(`{3,}|~{3,})(.*)$/;

/** A closing fence: the opening fence's character, at least as many, nothing else. */
function closes(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= fence.length && trimmed === fence[0]!.repeat(trimmed.length);
}

/**
 * Every fenced code block of `markdown`, in order, with its info string parsed: the first word is
 * the language, `file=<path>` names the file the block is written to, other words are flags.
 *
 * @example
 * readmeBlocks('```ts file=src/main.ts\nconsole.log(1);\n```\n'); // [{ lang: 'ts', file: 'src/main.ts', flags: [], code: 'console.log(1);\n', line: 1 }]
 */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    const words = open[2]!.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !closes(lines[j]!, fence)) {
      body.push(lines[j]!);
      j++;
    }
    if (j === lines.length) throw new Error(`README line ${i + 1}: code block is not closed`);
    const fileWord = words.slice(1).find((word) => word.startsWith('file='));
    blocks.push({
      lang: words[0] ?? '',
      ...(fileWord === undefined ? {} : { file: fileWord.slice('file='.length) }),
      flags: words.slice(1).filter((word) => word !== fileWord),
      code: body.length === 0 ? '' : `${body.join('\n')}\n`,
      line: i + 1,
    });
    i = j;
  }
  return blocks;
}

/**
 * The text of the section under the heading `title` (any level), up to the next heading of the
 * same or a higher level; headings inside code blocks do not count.
 *
 * @example
 * readmeSection(readme, 'Use it in your app');
 */
export function readmeSection(markdown: string, title: string): string {
  const lines = markdown.split(/\r?\n/);
  let inCode = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inCode = !inCode;
    if (inCode) continue;
    const heading = /^(#{1,6})\s+(.*?)\s*$/.exec(line);
    if (heading === null) continue;
    if (start === -1) {
      if (heading[2] === title) {
        start = i;
        level = heading[1]!.length;
      }
    } else if (heading[1]!.length <= level) {
      return lines.slice(start, i).join('\n');
    }
  }
  if (start === -1) throw new Error(`README has no heading "${title}"`);
  return lines.slice(start).join('\n');
}

/** What the "Use it in your app" section asks a user to do. */
export interface ReadmeApp {
  /** The blocks naming a file (`file=<path>`), in README order; paths are unique and relative. */
  readonly files: readonly { readonly file: string; readonly lang: string; readonly code: string }[];
  /** The install block (` ```bash ` without flags). */
  readonly install: string;
  /** The environment block (` ```bash env `). */
  readonly env: string;
}

/**
 * The app of the "Use it in your app" section: its files, its install commands and its
 * environment block. Fails when the section lacks one of them or names a file twice.
 *
 * @example
 * const { files, install, env } = readmeApp(readFileSync('README.md', 'utf8'));
 */
export function readmeApp(markdown: string): ReadmeApp {
  const blocks = readmeBlocks(readmeSection(markdown, USE_IT_HEADING));
  const files = blocks
    .filter((block) => block.file !== undefined)
    .map((block) => ({ file: block.file!, lang: block.lang, code: block.code }));
  const seen = new Set<string>();
  for (const { file } of files) {
    if (file.startsWith('/') || file.split('/').includes('..')) throw new Error(`README file=${file} leaves the app`);
    if (seen.has(file)) throw new Error(`README names file=${file} twice`);
    seen.add(file);
  }
  const only = (what: string, match: (block: ReadmeBlock) => boolean): string => {
    const found = blocks.filter(match);
    if (found.length !== 1)
      throw new Error(`README "${USE_IT_HEADING}" needs exactly one ${what} block (found ${found.length})`);
    return found[0]!.code;
  };
  return {
    files,
    install: only('```bash', (b) => b.lang === 'bash' && b.file === undefined && b.flags.length === 0),
    env: only('```bash env', (b) => b.lang === 'bash' && b.flags.includes('env')),
  };
}

/** The packages of the install block's `npm install` commands. */
export interface InstallCommand {
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
}

/**
 * The package names (versions stripped) of every `npm install` (or `npm i`) command of a shell
 * block (line continuations joined; `--save-dev`/`-D` commands are dev dependencies; other options skipped).
 *
 * @example
 * parseInstallCommand('npm install @tessera/web rxjs\nnpm install -D typescript\n');
 * // { dependencies: ['@tessera/web', 'rxjs'], devDependencies: ['typescript'] }
 */
export function parseInstallCommand(code: string): InstallCommand {
  const dependencies: string[] = [];
  const devDependencies: string[] = [];
  for (const line of code.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const words = line.replace(/#.*$/, '').trim().split(/\s+/).filter(Boolean);
    if (words[0] !== 'npm' || (words[1] !== 'install' && words[1] !== 'i')) continue;
    const dev = words.includes('--save-dev') || words.includes('-D');
    const names = words
      .slice(2)
      .filter((word) => !word.startsWith('-'))
      .map((word) => word.replace(/(?<=.)@[^/@]*$/, '')); // `@mikro-orm/core@6.6.16` → `@mikro-orm/core`
    (dev ? devDependencies : dependencies).push(...names);
  }
  return { dependencies, devDependencies };
}

/** One `export NAME=value` line of the environment block. */
export interface EnvAssignment {
  readonly name: string;
  /** The right-hand side as written (a literal or a `$(…)` command substitution). */
  readonly value: string;
}

/**
 * The `export NAME=value` lines of the environment block, in order (comments and blank lines
 * skipped; any other line fails, so the block stays a plain list of variables).
 *
 * @example
 * parseEnvBlock('export PORT=3000\n'); // [{ name: 'PORT', value: '3000' }]
 */
export function parseEnvBlock(code: string): EnvAssignment[] {
  const list: EnvAssignment[] = [];
  for (const raw of code.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^export ([A-Z_][A-Z0-9_]*)=(.+)$/.exec(line);
    if (match === null) throw new Error(`README env block: not an "export NAME=value" line: ${line}`);
    list.push({ name: match[1]!, value: match[2]! });
  }
  return list;
}

/**
 * Runs the environment block in `bash` (so generation commands run as a user's shell runs them)
 * and returns the value of each variable it exports.
 *
 * @example
 * const env = await evaluateEnvBlock(readmeApp(readme).env); // { PORT: '3000', TESSERA_DEVELOPMENT_SESSION_PEPPER: '…', … }
 */
export async function evaluateEnvBlock(code: string, cwd?: string): Promise<Record<string, string>> {
  const names = parseEnvBlock(code).map((assignment) => assignment.name);
  const print = `node -e 'const o={};for(const n of process.argv.slice(1))o[n]=process.env[n];console.log(JSON.stringify(o))' ${names.join(' ')}`;
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `${code}\n${print}`], {
    ...(cwd === undefined ? {} : { cwd }),
  });
  const values = JSON.parse(stdout) as Record<string, string | undefined>;
  for (const name of names) {
    if (values[name] === undefined || values[name] === '') throw new Error(`README env block left ${name} empty`);
  }
  return values as Record<string, string>;
}
