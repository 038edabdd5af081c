import {
  BadRequestException,
  ConflictException,
  ServiceUnavailableException,
  type HttpException,
} from '@nestjs/common';
import { classifyDatabaseFailure, type DatabaseFailureKind } from '@tessera/database';

/** A database failure a ViewSet operation let through, as the answer the client gets. */
export interface DatabaseFailureAnswer {
  readonly kind: DatabaseFailureKind;
  readonly exception: HttpException;
}

/**
 * The answer to a database failure escaping a ViewSet operation, in Nest's standard exception
 * JSON and never with the exception's text: a value the database refused (SQLSTATE class 22) is the
 * client's → 400 `Bad Request`; a unique violation (23505) → 409 `Conflict`; a database that cannot
 * answer (connection, timeout, pool) → 503 `Service Unavailable`. Anything else (other constraint
 * violations, deadlocks, unknown errors) stays the generic 500: the ViewSet should have prevented
 * or handled it.
 */
export function databaseFailureAnswer(error: unknown): DatabaseFailureAnswer | undefined {
  const kind = classifyDatabaseFailure(error);
  switch (kind) {
    case 'invalid_data':
      return { kind, exception: new BadRequestException({ statusCode: 400, message: 'Bad Request' }) };
    case 'unique_violation':
      return { kind, exception: new ConflictException({ statusCode: 409, message: 'Conflict' }) };
    case 'unavailable':
      return { kind, exception: new ServiceUnavailableException({ statusCode: 503, message: 'Service Unavailable' }) };
    default:
      return undefined;
  }
}
