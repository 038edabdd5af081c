import { describe, expect, it } from '@jest/globals';
import { MethodNotAllowedException } from '@nestjs/common';
import { createTestExchange } from '@tessera/web';
import { BaseViewSet, isImplemented, type ViewSetOperation } from './viewset.js';

class Nothing extends BaseViewSet<number> {}

class ListOnly extends BaseViewSet<number> {
  override async list(): Promise<number[]> {
    return [1];
  }
}

class ListOnlyChild extends ListOnly {}

class WithPatch extends BaseViewSet<number> {
  async partialUpdate(): Promise<number> {
    return 1;
  }
}

const FIVE: ViewSetOperation[] = ['list', 'create', 'retrieve', 'update', 'delete'];

describe('BaseViewSet', () => {
  it.each(FIVE)('answers %s with MethodNotAllowedException', async (operation) => {
    const { exchange } = createTestExchange();
    const viewSet = new Nothing() as unknown as Record<string, (ex: unknown, id?: string) => Promise<unknown>>;
    await expect(viewSet[operation]!(exchange, '1')).rejects.toBeInstanceOf(MethodNotAllowedException);
  });

  it('does not define partialUpdate', () => {
    expect('partialUpdate' in new Nothing()).toBe(false);
  });
});

describe('isImplemented', () => {
  it('counts nothing on a BaseViewSet subclass that overrides nothing', () => {
    expect(FIVE.filter((op) => isImplemented(new Nothing(), op))).toEqual([]);
  });

  it('counts exactly the overridden operations of a subclass, inherited overrides included', () => {
    expect(FIVE.filter((op) => isImplemented(new ListOnly(), op))).toEqual(['list']);
    expect(FIVE.filter((op) => isImplemented(new ListOnlyChild(), op))).toEqual(['list']);
  });

  it('counts partialUpdate only when it is defined', () => {
    expect(isImplemented(new ListOnly(), 'partialUpdate')).toBe(false);
    expect(isImplemented(new WithPatch(), 'partialUpdate')).toBe(true);
  });

  it('counts the functions of an object that does not extend BaseViewSet', () => {
    const viewSet = { list: async () => [], retrieve: async () => null, update: 'not a function' };
    expect([...FIVE, 'partialUpdate' as const].filter((op) => isImplemented(viewSet, op))).toEqual([
      'list',
      'retrieve',
    ]);
  });

  it('treats a subclass that assigns the base method back as not overriding it', () => {
    class Reassigned extends BaseViewSet<number> {
      override list = BaseViewSet.prototype.list;
    }
    expect(isImplemented(new Reassigned(), 'list')).toBe(false);
  });
});
