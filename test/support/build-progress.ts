// Progress of a first build from Go modules (the control plane, the real node's binaries): the
// build scripts announce their plan and each phase on stderr as marker lines, and this turns them
// into one line per phase with the elapsed time and an estimate of what is left. Pure: the clock
// is passed in.
//   ::plan <phase> <phase> ...   the phases this run will go through (only what is not cached)
//   ::phase <phase>              that phase starts (the previous one is done)

/**
 * Typical seconds per phase, so that the first line already carries an estimate: the control
 * plane's measured first build (about 8 min on this project's 2-core machines, Go's caches cold)
 * shared out by the binaries' size, kubelet and kube-proxy as measured with that cache warm (about
 * 2 min), CoreDNS as measured (1 min 42 s). The pace measured as phases finish scales the rest.
 */
export const TYPICAL_SECONDS: Readonly<Record<string, number>> = {
  'download-kubernetes': 120,
  'kube-apiserver': 140,
  'kube-controller-manager': 75,
  'kube-scheduler': 25,
  kubectl: 25,
  kine: 50,
  kwok: 45,
  'kwok-stages': 5,
  kubelet: 80,
  'kube-proxy': 20,
  crictl: 40,
  coredns: 100,
  pause: 2,
};
const UNKNOWN_PHASE_SECONDS = 60;

export interface Marker { readonly kind: 'plan'; readonly phases: readonly string[] }
export interface PhaseMarker { readonly kind: 'phase'; readonly phase: string }

/** A marker line, or undefined for anything else (Go's own output). */
export function parseMarker(line: string): Marker | PhaseMarker | undefined {
  const plan = /^::plan((?: \S+)*)\s*$/.exec(line);
  if (plan !== null) return { kind: 'plan', phases: (plan[1] ?? '').split(' ').filter((p) => p !== '') };
  const phase = /^::phase (\S+)\s*$/.exec(line);
  if (phase?.[1] !== undefined) return { kind: 'phase', phase: phase[1] };
  return undefined;
}

/** 75 s → "1m15s", 8 s → "8s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** "about 3 min", or "under a minute". */
function formatEstimate(ms: number): string {
  const min = Math.round(ms / 60_000);
  return min < 1 ? 'under a minute' : `about ${min} min`;
}

export class BuildProgress {
  private plan: string[] = [];
  private readonly done: { phase: string; ms: number }[] = [];
  private current: { phase: string; since: number } | undefined;
  private readonly started: number;
  private readonly label: string;
  private readonly typical: Readonly<Record<string, number>>;

  constructor(label: string, now: number, typical: Readonly<Record<string, number>> = TYPICAL_SECONDS) {
    this.label = label;
    this.started = now;
    this.typical = typical;
  }

  private typicalMs(phase: string): number {
    return (this.typical[phase] ?? UNKNOWN_PHASE_SECONDS) * 1000;
  }

  /**
   * Measured over typical for the phases finished so far (1 before the first): a busy machine
   * that took twice as long so far will likely take twice as long for the rest.
   */
  pace(): number {
    const typical = this.done.reduce((sum, d) => sum + this.typicalMs(d.phase), 0);
    const measured = this.done.reduce((sum, d) => sum + d.ms, 0);
    return typical === 0 ? 1 : measured / typical;
  }

  /** The time still to go: the current phase's remainder (never below zero) and every later one. */
  remainingMs(now: number): number {
    const pace = this.pace();
    const index = this.current === undefined ? -1 : this.plan.indexOf(this.current.phase);
    const later = this.plan.slice(index + 1).filter((p) => !this.done.some((d) => d.phase === p));
    const currentLeft = this.current === undefined ? 0 : Math.max(0, this.typicalMs(this.current.phase) * pace - (now - this.current.since));
    return currentLeft + later.reduce((sum, p) => sum + this.typicalMs(p) * pace, 0);
  }

  private finishCurrent(now: number): void {
    if (this.current !== undefined) this.done.push({ phase: this.current.phase, ms: now - this.current.since });
    this.current = undefined;
  }

  /** Feeds one stderr line; returns the line to print, if any. */
  line(text: string, now: number): string | undefined {
    const marker = parseMarker(text);
    if (marker === undefined) return undefined;
    if (marker.kind === 'plan') {
      this.plan = [...marker.phases];
      return `[${this.label}] ${this.plan.length} step${this.plan.length === 1 ? '' : 's'} to build: ${this.plan.join(', ')} (${formatEstimate(this.remainingMs(now))} on 2 cores)`;
    }
    this.finishCurrent(now);
    if (!this.plan.includes(marker.phase)) this.plan.push(marker.phase);
    this.current = { phase: marker.phase, since: now };
    const step = `${this.plan.indexOf(marker.phase) + 1}/${this.plan.length}`;
    const previous = this.done.at(-1);
    const finished = previous === undefined ? '' : `${previous.phase} took ${formatDuration(previous.ms)}; `;
    return `[${this.label}] ${step} ${marker.phase}: ${finished}${formatDuration(now - this.started)} elapsed, ${formatEstimate(this.remainingMs(now))} left`;
  }

  /** The closing line of a build that succeeded. */
  finish(now: number): string {
    this.finishCurrent(now);
    return `[${this.label}] built in ${formatDuration(now - this.started)}`;
  }
}
