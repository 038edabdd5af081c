import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { idOf, validateInput, type Serializer } from './serializer.js';

class Owner {
  @IsString()
  name!: string;
}

class TodoInput {
  @IsString()
  @MaxLength(5)
  title!: string;

  @IsOptional()
  @IsInt()
  priority?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => Owner)
  owner?: Owner;
}

class TodoPatch {
  @IsOptional()
  @IsString()
  title?: string;
}

/** A DTO class without a single rule: forbidUnknownValues rejects it. */
class Undecorated {
  title?: string;
}

const serializer: Serializer<{ id: number }, TodoInput> = { input: TodoInput, toJson: (m) => m };

async function failure(run: Promise<unknown>): Promise<{ status: number; text: string }> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpException);
  const http = error as HttpException;
  return { status: http.getStatus(), text: JSON.stringify(http.getResponse()) };
}

describe('validateInput', () => {
  it('returns an instance of the DTO', async () => {
    const input = await validateInput(serializer, { title: 'a', owner: { name: 'ada' } }, false);
    expect(input).toBeInstanceOf(TodoInput);
    expect((input as TodoInput).owner).toBeInstanceOf(Owner);
  });

  it('answers 400 in ValidationPipe format, statusCode first', async () => {
    expect(await failure(validateInput(serializer, { title: 5 }, false))).toEqual({
      status: 400,
      text: '{"statusCode":400,"message":["title must be shorter than or equal to 5 characters","title must be a string"],"error":"Bad Request"}',
    });
  });

  it('names a property that is not whitelisted', async () => {
    const { text } = await failure(validateInput(serializer, { title: 'a', x: 1 }, false));
    expect(JSON.parse(text).message).toEqual(['property x should not exist']);
  });

  it('prefixes nested messages with the parent path, as ValidationPipe flattens them', async () => {
    const { text } = await failure(validateInput(serializer, { title: 'a', owner: { name: 1, extra: true } }, false));
    expect(JSON.parse(text).message).toEqual(['owner.property extra should not exist', 'owner.name must be a string']);
  });

  it.each([[[]], [null], [5], ['title'], [true]])('rejects the non-object body %j', async (body) => {
    const { status, text } = await failure(validateInput(serializer, body, false));
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      statusCode: 400,
      message: ['Validation failed (object is expected)'],
      error: 'Bad Request',
    });
  });

  it('requires the properties on a full update and skips missing ones on a partial update', async () => {
    expect(JSON.parse((await failure(validateInput(serializer, {}, false))).text).message).toContain(
      'title must be a string',
    );
    await expect(validateInput(serializer, {}, true)).resolves.toBeInstanceOf(TodoInput);
    // Present properties are still validated on a partial update.
    expect(JSON.parse((await failure(validateInput(serializer, { priority: 'high' }, true))).text).message).toEqual([
      'priority must be an integer number',
    ]);
  });

  it('uses partialInput for a partial update when given', async () => {
    const withPatch = { ...serializer, partialInput: TodoPatch };
    await expect(validateInput(withPatch, { title: 'a long title' }, true)).resolves.toBeInstanceOf(TodoPatch);
  });

  it('rejects a DTO without rules (forbidUnknownValues)', async () => {
    const { text } = await failure(
      validateInput({ input: Undecorated, toJson: (m: unknown) => m }, { title: 'a' }, false),
    );
    expect(JSON.parse(text).message).toEqual(['an unknown value was passed to the validate function']);
  });

  it('refuses __proto__ and constructor keys (class-transformer would drop them unseen) and pollutes nothing', async () => {
    for (const key of ['__proto__', 'constructor']) {
      const body = JSON.parse(`{"title":"a","${key}":{"polluted":true}}`) as object;
      const { text } = await failure(validateInput(serializer, body, false));
      expect(JSON.parse(text)).toEqual({
        statusCode: 400,
        message: [`property ${key} should not exist`],
        error: 'Bad Request',
      });
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    }
  });
});

describe('idOf', () => {
  it('defaults to the id property, as a string', () => {
    expect(idOf(serializer, { id: 7 })).toBe('7');
  });

  it('uses the serializer idOf and yields undefined for null or undefined', () => {
    const custom: Serializer<{ slug: string | null }> = { input: TodoInput, toJson: (m) => m, idOf: (m) => m.slug };
    expect(idOf(custom, { slug: 'a b' })).toBe('a b');
    expect(idOf(custom, { slug: null })).toBeUndefined();
    expect(idOf(serializer, {} as { id: number })).toBeUndefined();
  });
});
