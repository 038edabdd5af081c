import { describe, it, expect } from '@jest/globals';
import {
  evaluateEnvBlock,
  parseEnvBlock,
  parseInstallCommand,
  readmeApp,
  readmeBlocks,
  readmeSection,
} from '../../support/readme-blocks.js';

const FENCE = '```';
const SAMPLE = [
  '# Project',
  '',
  '## Use it in your app',
  '',
  `${FENCE}bash`,
  'npm install a @scope/b \\',
  '  c',
  'npm install --save-dev typescript',
  FENCE,
  '',
  `${FENCE}ts file=src/main.ts`,
  "import { AppModule } from './app.module.js';",
  '',
  '// ## not a heading',
  FENCE,
  '',
  '### Sub-section',
  '',
  `${FENCE}\`\` json file=tsconfig.json`,
  '{ "a": "```" }',
  `${FENCE}\`\``,
  '',
  `${FENCE}bash env`,
  '# comment',
  'export PORT=3000',
  `export SECRET=$(node -p "'x'.repeat(20)")`,
  FENCE,
  '',
  '## Next section',
  '',
  `${FENCE}ts file=src/other.ts`,
  'outside();',
  FENCE,
].join('\n');

describe('test/support/readme-blocks', () => {
  it('parses fenced blocks with their info strings, verbatim', () => {
    const blocks = readmeBlocks(SAMPLE);
    expect(blocks.map(({ lang, file, flags, line }) => ({ lang, file, flags, line }))).toEqual([
      { lang: 'bash', file: undefined, flags: [], line: 5 },
      { lang: 'ts', file: 'src/main.ts', flags: [], line: 11 },
      { lang: 'json', file: 'tsconfig.json', flags: [], line: 19 },
      { lang: 'bash', file: undefined, flags: ['env'], line: 23 },
      { lang: 'ts', file: 'src/other.ts', flags: [], line: 31 },
    ]);
    expect(blocks[1]!.code).toBe("import { AppModule } from './app.module.js';\n\n// ## not a heading\n");
    expect(blocks[2]!.code).toBe('{ "a": "```" }\n');
    expect(() => readmeBlocks(`${FENCE}ts\nunclosed\n`)).toThrow('code block is not closed');
  });

  it('cuts the section at the next heading of its level, not at sub-headings or code', () => {
    const section = readmeSection(SAMPLE, 'Use it in your app');
    expect(section).toContain('### Sub-section');
    expect(section).toContain('export PORT=3000');
    expect(section).not.toContain('Next section');
    expect(() => readmeSection(SAMPLE, 'Missing')).toThrow('no heading "Missing"');
  });

  it('extracts the app: files, install and env blocks', () => {
    const app = readmeApp(SAMPLE);
    expect(app.files.map((f) => f.file)).toEqual(['src/main.ts', 'tsconfig.json']);
    expect(parseInstallCommand(app.install)).toEqual({
      dependencies: ['a', '@scope/b', 'c'],
      devDependencies: ['typescript'],
    });
    expect(parseEnvBlock(app.env)).toEqual([
      { name: 'PORT', value: '3000' },
      { name: 'SECRET', value: `$(node -p "'x'.repeat(20)")` },
    ]);
    expect(() => readmeApp(SAMPLE.replace('file=tsconfig.json', 'file=src/main.ts'))).toThrow('twice');
    expect(() => readmeApp(SAMPLE.replace('file=tsconfig.json', 'file=../x.json'))).toThrow('leaves the app');
    expect(() => readmeApp(SAMPLE.replace(`${FENCE}bash env`, `${FENCE}sh`))).toThrow('```bash env');
  });

  it('refuses env lines that are not exports, and evaluates the block in bash', async () => {
    expect(() => parseEnvBlock('PORT=3000\n')).toThrow('not an "export NAME=value" line');
    const env = await evaluateEnvBlock(readmeApp(SAMPLE).env);
    expect(env).toEqual({ PORT: '3000', SECRET: 'x'.repeat(20) });
    await expect(evaluateEnvBlock('export EMPTY=$(printf "")\n')).rejects.toThrow('left EMPTY empty');
  });
});
