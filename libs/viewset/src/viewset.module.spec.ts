import { describe, expect, it } from '@jest/globals';
import { Injectable, SetMetadata, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import type { Serializer } from './serializer.js';
import { BaseViewSet } from './viewset.js';
import { ViewSetBodyGate } from './viewset-body.gate.js';
import { ViewSetModule } from './viewset.module.js';
import { ViewSetConfigError, VIEWSET_MODULE_OPTIONS } from './viewset.options.js';

class Input {
  @IsString()
  title!: string;
}

@Injectable()
class Todos extends BaseViewSet<{ id: number }> {}

@Injectable()
class Notes extends BaseViewSet<{ id: number }> {}

const serializer: Serializer<{ id: number }, Input> = { input: Input, toJson: (m) => m };
const marker = (value: string): ClassDecorator => SetMetadata('marker', value) as ClassDecorator;
const markerOf = (controller: unknown): unknown => Reflect.getMetadata('marker', controller as Type<unknown>);

// forRoot options reach forFeature controllers through module state: the order of these tests matters.
describe('ViewSetModule', () => {
  it('applies the forRoot decorators to forFeature controllers built before forRoot', async () => {
    const feature = ViewSetModule.forFeature([{ prefix: '/todos', viewSet: Todos, serializer }]);
    expect(markerOf(feature.controllers![0])).toBeUndefined();
    const root = ViewSetModule.forRoot({ decorators: [marker('root-1')] });
    expect(markerOf(feature.controllers![0])).toBe('root-1');
    const moduleRef = await Test.createTestingModule({ imports: [root, feature] }).compile();
    expect(moduleRef.get(VIEWSET_MODULE_OPTIONS)).toEqual({ decorators: [expect.any(Function)] });
    await moduleRef.close();
  });

  it('applies the latest forRoot decorators to forFeature controllers built after it', async () => {
    const root = ViewSetModule.forRoot({ decorators: [marker('root-2')], bodyLimitBytes: 10 });
    const feature = ViewSetModule.forFeature([{ prefix: '/todos', viewSet: Todos, serializer }]);
    expect(markerOf(feature.controllers![0])).toBe('root-2');
    const moduleRef = await Test.createTestingModule({ imports: [root, feature] }).compile();
    await moduleRef.close();
  });

  it('fails bootstrap when the application has no forRoot but its forFeature controllers got one', async () => {
    const feature = ViewSetModule.forFeature([{ prefix: '/todos', viewSet: Todos, serializer }]);
    const compiling = Test.createTestingModule({ imports: [feature] }).compile();
    await expect(compiling).rejects.toThrow(ViewSetConfigError);
    await expect(compiling).rejects.toThrow(
      'ViewSetModule.forFeature(/todos) was built with the options of another ViewSetModule.forRoot() call',
    );
  });

  it('register uses its own options, never those of forRoot', () => {
    const module = ViewSetModule.register([{ prefix: '/todos', viewSet: Todos, serializer }], {
      decorators: [marker('own')],
    });
    expect(markerOf(module.controllers![0])).toBe('own');
    expect(
      markerOf(ViewSetModule.register([{ prefix: '/todos', viewSet: Todos, serializer }]).controllers![0]),
    ).toBeUndefined();
  });

  it('provides each ViewSet class once, one controller per entry, and the body gate', () => {
    const module = ViewSetModule.register([
      { prefix: '/todos', viewSet: Todos, serializer },
      { prefix: '/archived', viewSet: Todos, serializer },
      { prefix: '/notes', viewSet: Notes, serializer },
    ]);
    expect(module.controllers).toHaveLength(3);
    const providers = module.providers ?? [];
    expect(providers.filter((p) => p === Todos)).toHaveLength(1);
    expect(providers).toContain(Notes);
    expect(providers).toContain(ViewSetBodyGate);
  });

  it.each(['reference', 'deep-hash'] as const)(
    'keeps two look-alike registrations apart (module ids: %s)',
    async (moduleIdGeneratorAlgorithm) => {
      const moduleRef = await Test.createTestingModule(
        {
          imports: [
            ViewSetModule.register([{ prefix: '/todos', viewSet: Todos, serializer }]),
            ViewSetModule.register([{ prefix: '/todos', viewSet: Todos, serializer }]),
          ],
        },
        { moduleIdGeneratorAlgorithm },
      ).compile();
      const modules = [...moduleRef.get(ModulesContainer).values()].filter((m) => m.metatype === ViewSetModule);
      expect(modules).toHaveLength(2);
      expect(new Set(modules.flatMap((m) => [...m.controllers.keys()])).size).toBe(2);
      await moduleRef.close();
    },
  );

  it.each([-1, 1.5, Number.NaN])('rejects bodyLimitBytes %p', (bodyLimitBytes) => {
    expect(() =>
      ViewSetModule.register([{ prefix: '/todos', viewSet: Todos, serializer }], { bodyLimitBytes }),
    ).toThrow(ViewSetConfigError);
  });
});
