// MQTT topic filters as the bus client uses them: split once into levels, matched against topics
// (+ one level, # the rest), and compared, so a client never subscribes to what one of its
// subscriptions already brings (an overlapping second subscription would deliver each message twice).

/** A topic filter split into its levels. */
export type Filter = readonly string[];

export function filterOf(filter: string): Filter {
  return filter.split('/');
}

/** Whether `topic` (split into levels) matches `filter`. */
export function matchLevels(filter: Filter, topic: readonly string[]): boolean {
  for (let i = 0; i < filter.length; i += 1) {
    if (filter[i] === '#') return true;
    if (i >= topic.length || (filter[i] !== '+' && filter[i] !== topic[i])) return false;
  }
  return filter.length === topic.length;
}

export function matches(filter: string, topic: string): boolean {
  return matchLevels(filterOf(filter), topic.split('/'));
}

/** Whether every topic that matches `narrow` also matches `broad`. */
export function covers(broad: Filter, narrow: Filter): boolean {
  for (let i = 0; i < broad.length; i += 1) {
    if (broad[i] === '#') return true;
    if (i >= narrow.length || narrow[i] === '#') return false;
    if (broad[i] === '+') continue;
    if (narrow[i] === '+' || broad[i] !== narrow[i]) return false;
  }
  return broad.length === narrow.length;
}
