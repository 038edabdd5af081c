import {
  IdentityChangeFeed,
  type IdentityChangeSubscriber,
  type IdentityChangeSubscription,
} from '../store/identity-change-feed.port.js';

/**
 * A change feed driven by hand, for unit tests of the session cache: `live` is what the test sets,
 * `publish` and `lose` stand in for a notice and a lost listener.
 *
 * @example
 * const feed = new ManualChangeFeed();
 * await cache.attach(feed);
 * feed.publish(['user-id']);
 */
export class ManualChangeFeed extends IdentityChangeFeed {
  live = true;
  private readonly subscribers = new Set<IdentityChangeSubscriber>();

  async subscribe(subscriber: IdentityChangeSubscriber): Promise<IdentityChangeSubscription> {
    this.subscribers.add(subscriber);
    const isLive = () => this.live;
    return {
      get live() {
        return isLive();
      },
      close: async () => void this.subscribers.delete(subscriber),
    };
  }

  /** A committed change of these users. */
  publish(userIds: readonly string[]): void {
    for (const subscriber of this.subscribers) subscriber.changed(userIds);
  }

  /** The listener was lost: not live, and every subscriber reset. */
  lose(): void {
    this.live = false;
    for (const subscriber of this.subscribers) subscriber.reset();
  }
}

/** A session cache of `maxAgeMilliseconds` attached to a live {@link ManualChangeFeed}. */
export async function attachedCache<T extends { attach(feed: IdentityChangeFeed): Promise<void> }>(
  cache: T,
): Promise<{ cache: T; feed: ManualChangeFeed }> {
  const feed = new ManualChangeFeed();
  await cache.attach(feed);
  return { cache, feed };
}
