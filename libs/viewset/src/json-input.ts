import { BadRequestException, type HttpException } from '@nestjs/common';

/**
 * Deepest nesting a ViewSet body may have (the body object itself is level 1). class-transformer
 * and class-validator recurse once per level: a deep enough body (20,000 levels fit in 1 MiB)
 * overflows the stack, so bodies are measured before they reach them.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Keys class-transformer skips while copying a body onto the DTO (prototype-pollution guard):
 * whitelist validation never sees them, so they would vanish instead of being refused.
 */
const DROPPED_KEYS = new Set(['__proto__', 'constructor']);

/**
 * Checks a parsed JSON body before validation, without recursion: deeper than
 * {@link MAX_BODY_DEPTH} → 400 `JSON body nested too deeply`; a `__proto__` or `constructor` key
 * at any level → 400 in `ValidationPipe` format (`property constructor should not exist`,
 * `child.property __proto__ should not exist`), as any other key the DTO does not declare.
 */
export function checkBodyShape(body: unknown): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: body, depth: 1, path: '' }];
  const dropped: string[] = [];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_DEPTH) throw tooDeep();
    for (const key of Object.keys(value)) {
      if (DROPPED_KEYS.has(key)) dropped.push(`${path}property ${key} should not exist`);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: `${path}${key}.` });
    }
  }
  if (dropped.length > 0)
    throw new BadRequestException({ statusCode: 400, message: dropped.sort(), error: 'Bad Request' });
}

function tooDeep(): HttpException {
  return new BadRequestException({ statusCode: 400, message: 'JSON body nested too deeply', error: 'Bad Request' });
}
