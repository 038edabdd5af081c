import type { Browser } from 'playwright-core';
import { launchChromium, openDevice, type BrowserDevice } from './browser.js';
import { DemoServer } from './demo-server.js';

/**
 * One journey's demo server and headless Chromium, and every device opened on them: the journeys
 * open devices as they go and check, last, that none of them saw a page error or a CSP violation.
 */
export class BrowserHarness {
  private readonly devices: BrowserDevice[] = [];

  private constructor(
    readonly demo: DemoServer,
    private readonly browser: Browser,
  ) {}

  /** Starts the demo (`env`: extra variables, as {@link DemoServer.start} takes them) and Chromium. */
  static async start(env: Readonly<Record<string, string>> = {}): Promise<BrowserHarness> {
    const demo = await DemoServer.start(env);
    try {
      return new BrowserHarness(demo, await launchChromium());
    } catch (error) {
      await demo.stop();
      throw error;
    }
  }

  /** Opens a new device (context, page, virtual authenticator) on the demo's origin. */
  async device(): Promise<BrowserDevice> {
    const opened = await openDevice(this.browser, this.demo.origin);
    this.devices.push(opened);
    return opened;
  }

  /** Page errors and CSP violations seen so far on every device opened. */
  problems(): string[] {
    return this.devices.flatMap((opened) => opened.problems);
  }

  /** Closes the browser, then stops the demo. */
  async stop(): Promise<void> {
    await this.browser.close();
    await this.demo.stop();
  }
}
