import { describe, expect, it } from '@jest/globals';
import { RouteRegistrationError } from '@tessera/web';
import { allowHeader, resourcePaths, VIEWSET_ROUTES } from './viewset-routes.js';
import { BaseViewSet } from './viewset.js';

class Everything extends BaseViewSet<number> {
  override async list(): Promise<number[]> {
    return [];
  }
  override async create(): Promise<number> {
    return 1;
  }
  override async retrieve(): Promise<number> {
    return 1;
  }
  override async update(): Promise<number> {
    return 1;
  }
  override async delete(): Promise<boolean> {
    return true;
  }
  async partialUpdate(): Promise<number> {
    return 1;
  }
}

class CreateAndDelete extends BaseViewSet<number> {
  override async create(): Promise<number> {
    return 1;
  }
  override async delete(): Promise<boolean> {
    return true;
  }
}

describe('VIEWSET_ROUTES', () => {
  it('is the route table of §7.4', () => {
    expect(VIEWSET_ROUTES.map((r) => `${r.method} ${r.target} ${r.operation} ${r.body}`)).toEqual([
      'GET collection list none',
      'POST collection create full',
      'GET item retrieve none',
      'PUT item update full',
      'PATCH item partialUpdate partial',
      'DELETE item delete none',
    ]);
  });
});

describe('allowHeader', () => {
  it('lists the implemented methods of each path in router order, HEAD with GET', () => {
    expect(allowHeader(new Everything(), 'collection')).toBe('GET, HEAD, POST');
    expect(allowHeader(new Everything(), 'item')).toBe('GET, HEAD, PUT, PATCH, DELETE');
  });

  it('leaves out unimplemented operations and is empty when nothing is implemented', () => {
    expect(allowHeader(new CreateAndDelete(), 'collection')).toBe('POST');
    expect(allowHeader(new CreateAndDelete(), 'item')).toBe('DELETE');
    expect(allowHeader({}, 'collection')).toBe('');
    expect(allowHeader({}, 'item')).toBe('');
  });
});

describe('resourcePaths', () => {
  it('strips one trailing slash', () => {
    expect(resourcePaths('/todos/')).toEqual({ collection: '/todos', item: '/todos/:id' });
    expect(resourcePaths('/todos')).toEqual({ collection: '/todos', item: '/todos/:id' });
  });

  it('serves the root for the prefix /', () => {
    expect(resourcePaths('/')).toEqual({ collection: '/', item: '/:id' });
  });

  it('accepts other prefix parameters', () => {
    expect(resourcePaths('/orgs/:orgId/todos')).toEqual({
      collection: '/orgs/:orgId/todos',
      item: '/orgs/:orgId/todos/:id',
    });
  });

  it("rejects a prefix declaring ':id' and one without a leading slash", () => {
    expect(() => resourcePaths('/orgs/:id/todos')).toThrow(
      new RouteRegistrationError("Prefix must not declare ':id': /orgs/:id/todos"),
    );
    expect(() => resourcePaths('todos')).toThrow(new RouteRegistrationError("Prefix must start with '/': todos"));
  });
});
