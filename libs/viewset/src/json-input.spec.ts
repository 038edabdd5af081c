import { describe, expect, it } from '@jest/globals';
import { BadRequestException } from '@nestjs/common';
import { checkBodyShape, MAX_BODY_DEPTH } from './json-input.js';

/** `{"a":{"a":...1}}` with `levels` objects. */
function nested(levels: number): unknown {
  return JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));
}

function rejection(body: unknown): unknown {
  try {
    checkBodyShape(body);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).getResponse();
  }
  throw new Error('accepted');
}

describe('checkBodyShape', () => {
  it(`accepts ${MAX_BODY_DEPTH} levels and refuses one more, objects and arrays alike`, () => {
    expect(() => checkBodyShape(nested(MAX_BODY_DEPTH))).not.toThrow();
    const tooDeep = { statusCode: 400, message: 'JSON body nested too deeply', error: 'Bad Request' };
    expect(rejection(nested(MAX_BODY_DEPTH + 1))).toEqual(tooDeep);
    expect(rejection({ list: JSON.parse('['.repeat(MAX_BODY_DEPTH) + ']'.repeat(MAX_BODY_DEPTH)) })).toEqual(tooDeep);
  });

  it('refuses a body nested 20,000 levels deep without overflowing the stack', () => {
    expect(rejection(nested(20_000))).toEqual({
      statusCode: 400,
      message: 'JSON body nested too deeply',
      error: 'Bad Request',
    });
  });

  it('refuses __proto__ and constructor keys at any level, with the path Nest gives nested properties', () => {
    const body = JSON.parse(
      '{"title":"x","__proto__":{"admin":true},"child":{"constructor":{"prototype":{}}},"items":[{"__proto__":1}]}',
    );
    expect(rejection(body)).toEqual({
      statusCode: 400,
      message: [
        'child.property constructor should not exist',
        'items.0.property __proto__ should not exist',
        'property __proto__ should not exist',
      ],
      error: 'Bad Request',
    });
  });

  it('accepts wide bodies and keys that merely resemble the dropped ones', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, { v: [i] }]));
    expect(() => checkBodyShape(wide)).not.toThrow();
    expect(() => checkBodyShape({ proto: 1, Constructor: 2, prototype: 3, constructors: [] })).not.toThrow();
  });
});
