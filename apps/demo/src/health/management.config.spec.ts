import { describe, expect, it } from '@jest/globals';
import { managementFromEnv } from './management.config.js';

describe('managementFromEnv', () => {
  it('asks for no management listener while TESSERA_MANAGEMENT_PORT is unset or empty', () => {
    expect(managementFromEnv({})).toBeUndefined();
    expect(managementFromEnv({ TESSERA_MANAGEMENT_PORT: ' ' })).toBeUndefined();
  });

  it('reads the port (0 picks a free one) and the optional host', () => {
    expect(managementFromEnv({ TESSERA_MANAGEMENT_PORT: '9000' })).toEqual({ port: 9000 });
    expect(managementFromEnv({ TESSERA_MANAGEMENT_PORT: '0', TESSERA_MANAGEMENT_HOST: '127.0.0.1' })).toEqual({
      port: 0,
      host: '127.0.0.1',
    });
  });

  it('fails the start naming the variable for anything but a port number', () => {
    for (const value of ['65536', '-1', '90a', '9000.5', 'http://x:9000']) {
      expect(() => managementFromEnv({ TESSERA_MANAGEMENT_PORT: value })).toThrow(
        'TESSERA_MANAGEMENT_PORT must be a port number from 0 to 65535',
      );
    }
  });
});
