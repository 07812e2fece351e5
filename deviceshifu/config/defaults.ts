// Every default of deviceShifu's ConfigMap in one place (Shifu's values), so the
// parser, the telemetry loop and the README agree.
export const CONFIG_DEFAULTS = {
  defaultTimeoutSeconds: 3,
  telemetryUpdateIntervalInMilliseconds: 1000,
  telemetryTimeoutInMilliseconds: 3000,
  telemetryInitialDelayInMilliseconds: 3000,
  defaultPushToServer: false,
  /** Shifu accepts every method on an instruction without readWrite. */
  readWrite: 'RW',
} as const;

/** The ConfigMap keys deviceShifu reads, one file each in the mounted directory. */
export const CONFIG_KEYS = ['driverProperties', 'instructions', 'telemetries', 'controlMsgs'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Keys Shifu's demos carry that deviceShifu does not use: ignored with a note, not an error. */
export const IGNORED_KEYS = ['customInstructionsPython', 'leshanConfig'] as const;

/** Paths the gateway serves itself: an instruction of the same name could never be reached. */
export const BUILTIN_PATHS = ['health', 'ready', 'metrics', 'instructions'] as const;

/** The misspelling some of Shifu's demos ship (one l), read as an alias of the real key. */
export const MISSPELLED_INTERVAL = 'telemetryUpdateIntervalInMiliseconds';
