import { BadRequestException, HttpException, ValidationPipe, type Type } from '@nestjs/common';
import * as classTransformer from 'class-transformer';
import * as classValidator from 'class-validator';
import { checkBodyShape } from './json-input.js';

/**
 * Input and output mapping of a ViewSet resource (web-and-viewset §7.3).
 *
 * @example
 * class TodoInput { @IsString() title!: string; }
 * const todoSerializer: Serializer<Todo, TodoInput> = {
 *   input: TodoInput,
 *   toJson: (todo) => ({ id: todo.id, title: todo.title }),
 * };
 */
export interface Serializer<T, I extends object = object> {
  /** class-validator / class-transformer DTO for POST and PUT bodies. */
  input: Type<I>;
  /** DTO for PATCH bodies. @default `input`, validated with missing properties allowed */
  partialInput?: Type<Partial<I>>;
  /** Output mapping: the only thing ever serialised. */
  toJson(model: T): unknown;
  /** Id for the `Location` of a 201 (header omitted when it yields `null`/`undefined`). @default `(model as any).id` */
  idOf?(model: T): string | number | null | undefined;
}

/** The options of §7.3; `transform` makes the pipe return the validated instance. */
const BASE_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  transform: true,
  validatorPackage: classValidator,
  transformerPackage: classTransformer,
} as const;

const FULL = new ValidationPipe(BASE_OPTIONS);
const PARTIAL = new ValidationPipe({ ...BASE_OPTIONS, skipMissingProperties: true });

/** The message Nest's `ValidationPipe` gives a body that is not an object. */
const OBJECT_EXPECTED = 'Validation failed (object is expected)';

/**
 * Validates a parsed JSON body against the serializer's DTO with Nest's own `ValidationPipe`
 * (plainToInstance, then validate with whitelist / forbidNonWhitelisted / forbidUnknownValues, and
 * skipMissingProperties for PATCH), so messages are flattened exactly as Nest does (`child.name
 * must be a string`). Failure is a 400 in `ValidationPipe` format; success is the DTO instance.
 * The body's depth and the keys class-transformer would silently drop are checked first
 * (`checkBodyShape`).
 */
export async function validateInput(serializer: Serializer<unknown>, body: unknown, partial: boolean): Promise<object> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError([OBJECT_EXPECTED]);
  checkBodyShape(body);
  const metatype = partial ? (serializer.partialInput ?? serializer.input) : serializer.input;
  try {
    return (await (partial ? PARTIAL : FULL).transform(body, { type: 'body', metatype, data: undefined })) as object;
  } catch (error) {
    if (error instanceof BadRequestException) {
      const response = error.getResponse() as { message?: unknown };
      throw validationError(response.message);
    }
    throw error;
  }
}

/** The id a `Location` header names, `undefined` when the model has none. */
export function idOf<T>(serializer: Serializer<T>, model: T): string | undefined {
  const id = serializer.idOf !== undefined ? serializer.idOf(model) : (model as { id?: unknown } | null)?.id;
  return id === null || id === undefined ? undefined : String(id);
}

/** 400 with the key order of the contract's bodies (`statusCode` first). */
function validationError(message: unknown): HttpException {
  return new BadRequestException({ statusCode: 400, message, error: 'Bad Request' });
}
