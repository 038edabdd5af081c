import { describe, expect, it } from '@jest/globals';
import {
  Injectable,
  RequestMethod,
  SetMetadata,
  UseGuards,
  type CanActivate,
  type NestInterceptor,
  type CallHandler,
  type ExecutionContext,
} from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { IsString } from 'class-validator';
import { createViewSetController } from './controller.factory.js';
import type { Serializer } from './serializer.js';
import { BaseViewSet } from './viewset.js';

class Input {
  @IsString()
  title!: string;
}

@Injectable()
class Todos extends BaseViewSet<{ id: number }> {}

@Injectable()
class DenyAll implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Injectable()
class PassThrough implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

const serializer: Serializer<{ id: number }, Input> = { input: Input, toJson: (m) => m };

function routes(controller: Function): string[] {
  const proto = controller.prototype as Record<string, Function>;
  return Object.getOwnPropertyNames(proto)
    .filter((name) => name !== 'constructor')
    .map(
      (name) =>
        `${name} ${RequestMethod[Reflect.getMetadata(METHOD_METADATA, proto[name]!) as number]} ${Reflect.getMetadata(PATH_METADATA, proto[name]!)}`,
    );
}

describe('createViewSetController', () => {
  it('maps the six handlers, then the 405 fallbacks of both paths, under @Controller(prefix)', () => {
    const controller = createViewSetController({ prefix: '/todos/', viewSet: Todos, serializer }, []);
    expect(Reflect.getMetadata(PATH_METADATA, controller)).toBe('/todos');
    expect(controller.name).toBe('TodosController');
    expect(routes(controller)).toEqual([
      'list GET /',
      'create POST /',
      'retrieve GET :id',
      'update PUT :id',
      'partialUpdate PATCH :id',
      'delete DELETE :id',
      'collectionMethodNotAllowed ALL /',
      'itemMethodNotAllowed ALL :id',
    ]);
  });

  it('applies guard classes, guard decorators, interceptors and extra decorators to the class', () => {
    const ROLE = Symbol('role');
    const controller = createViewSetController(
      {
        prefix: '/todos',
        viewSet: Todos,
        serializer,
        guards: [DenyAll, SetMetadata(ROLE, 'admin') as ClassDecorator],
        interceptors: [PassThrough],
        decorators: [SetMetadata('entry', true) as ClassDecorator],
      },
      [SetMetadata('module', true) as ClassDecorator],
    );
    expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toEqual([DenyAll]);
    expect(Reflect.getMetadata(ROLE, controller)).toBe('admin');
    expect(Reflect.getMetadata(INTERCEPTORS_METADATA, controller)).toEqual([PassThrough]);
    expect(Reflect.getMetadata('entry', controller)).toBe(true);
    expect(Reflect.getMetadata('module', controller)).toBe(true);
  });

  it('applies action decorators to their operation only, and refuses unknown operations', () => {
    const controller = createViewSetController(
      {
        prefix: '/todos',
        viewSet: Todos,
        serializer,
        actionDecorators: { create: [UseGuards(DenyAll)] },
      },
      [],
    );
    const proto = controller.prototype as Record<string, unknown>;
    expect(Reflect.getMetadata(GUARDS_METADATA, proto['create'] as object)).toEqual([DenyAll]);
    expect(Reflect.getMetadata(GUARDS_METADATA, proto['list'] as object)).toBeUndefined();
    expect(() =>
      createViewSetController(
        { prefix: '/todos', viewSet: Todos, serializer, actionDecorators: { publish: [] } as never },
        [],
      ),
    ).toThrow('actionDecorators: unknown ViewSet operation "publish"');
  });

  it('generates a distinct class per entry', () => {
    const a = createViewSetController({ prefix: '/a', viewSet: Todos, serializer }, []);
    const b = createViewSetController({ prefix: '/b', viewSet: Todos, serializer }, []);
    expect(a).not.toBe(b);
    expect(Reflect.getMetadata(PATH_METADATA, b)).toBe('/b');
  });

  it('rejects prefixes the router grammar rejects, with the router messages', () => {
    expect(() => createViewSetController({ prefix: '/a%20b', viewSet: Todos, serializer }, [])).toThrow(
      "Invalid static segment 'a%20b' in GET /a%20b",
    );
    expect(() => createViewSetController({ prefix: '/orgs/:id/todos', viewSet: Todos, serializer }, [])).toThrow(
      "Prefix must not declare ':id': /orgs/:id/todos",
    );
  });
});
