/** One pepper version. */
export interface PepperVersion {
  readonly version: string;
  readonly key: Uint8Array;
}

/** The session pepper ring: the current version plus up to five previous ones. */
export interface SessionPepperRing {
  readonly current: PepperVersion;
  byVersion(version: string): PepperVersion | undefined;
}
