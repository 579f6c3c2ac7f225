/**
 * Fan-out groups of the SSE hub: the streams of one tenant that share a filter (run, event types) and a position
 * receive the same frames, so a frame is appended once to the group's log, not once per stream, and a flush writes
 * one shared Buffer (HTTP chunk framing included) to every member. Per stream the hub keeps only a cursor into the
 * log; the log is trimmed once every member has written past a frame.
 *
 * A stream that is not at the group's position (replaying history, resumed from another instance that is ahead,
 * just opened after events were released) is served on its own until its position matches (sse.ts).
 */
import type { ServerResponse } from 'node:http'

/** The shape of a member the group needs: its response and its cursor (absolute index into the log). */
export interface GroupMember {
  readonly res: ServerResponse
  cursor: number
}

/** The HTTP/1.1 chunk terminator (RFC 9112 §7.1). */
const CRLF = Buffer.from('\r\n', 'latin1')

/**
 * The key of a stream's filter: streams with equal keys receive the same events. Event types are sorted, so
 * `a,b` and `b,a` share a group.
 */
export function filterKey(runId: string | undefined, eventTypes: ReadonlySet<string> | undefined): string {
  // JSON text keeps the parts unambiguous whatever characters a run id or type contains.
  return JSON.stringify([runId ?? null, eventTypes ? [...eventTypes].sort() : null])
}

/** One shared chunk: the frames' bytes, and the same bytes framed as one HTTP/1.1 chunk. */
interface SharedChunk {
  readonly body: Buffer
  framed: Buffer | undefined
}

export class FanoutGroup<Member extends GroupMember> {
  readonly key: string
  readonly tenantId: string
  readonly runId: string | undefined
  readonly eventTypes: ReadonlySet<string> | undefined
  /** Streams of this filter served from the shared log (at the group's position). */
  readonly synced = new Set<Member>()
  /** Streams of this filter served on their own (see the module comment). */
  readonly solo = new Set<Member>()
  /**
   * Id of the last event appended (the position every synced member is at); undefined before the first one, or
   * the position of the first member to join an empty group.
   */
  lastId: string | undefined = undefined
  /** Frames not yet written by every synced member; `frames[0]` has absolute index `base`. */
  #frames: Buffer[] = []
  #base = 0
  /** Log end captured when a flush round starts: every member is written at least up to it. */
  #roundEnd = 0
  /** Chunks of the current round by the cursor and end they span (members at one cursor share one Buffer). */
  #roundChunks = new Map<string, SharedChunk>()

  constructor(key: string, tenantId: string, runId: string | undefined, eventTypes: ReadonlySet<string> | undefined) {
    this.key = key
    this.tenantId = tenantId
    this.runId = runId
    this.eventTypes = eventTypes
  }

  /** Absolute index one past the last frame appended. */
  get end(): number {
    return this.#base + this.#frames.length
  }

  get isEmpty(): boolean {
    return this.synced.size === 0 && this.solo.size === 0
  }

  /** Whether the group's filter takes events of `type`. */
  accepts(type: string): boolean {
    return this.eventTypes === undefined || this.eventTypes.has(type)
  }

  /** Appends a frame for every synced member; `eventId` (absent for heartbeats) moves the group's position. */
  append(frame: Buffer, eventId: string | undefined): void {
    this.#frames.push(frame)
    if (eventId !== undefined) this.lastId = eventId
  }

  /**
   * Makes `member` synced at the end of the log: it has (on its own) been given every frame the log holds.
   * Only valid when its position is the group's, or when no member is synced (the group then adopts it).
   */
  join(member: Member, position: string | undefined): void {
    if (this.synced.size === 0) {
      this.lastId = position
      this.#base = this.end
      this.#frames = []
    }
    this.solo.delete(member)
    member.cursor = this.end
    this.synced.add(member)
  }

  /** Starts a flush round: members are written up to the current end. Returns the members behind it. */
  beginRound(): Member[] {
    this.#roundEnd = this.end
    this.#roundChunks.clear()
    const behind: Member[] = []
    for (const member of this.synced) if (member.cursor < this.#roundEnd) behind.push(member)
    return behind
  }

  /**
   * The bytes `member` must write now: from its cursor to the log's current end, so frames appended while a
   * round is under way reach the members it has not written yet in the same round (a round over thousands of
   * streams spans many event-loop turns). Shared with every member at the same cursor; undefined when the member
   * is up to date. `chunked`: framed as one HTTP/1.1 chunk. Follow with {@link advance}.
   */
  chunkFor(member: Member, chunked: boolean): Buffer | undefined {
    const from = member.cursor
    const to = this.end
    if (from >= to) return undefined
    const key = `${from}:${to}`
    let shared = this.#roundChunks.get(key)
    if (shared === undefined) {
      const frames = this.#frames.slice(from - this.#base, to - this.#base)
      shared = { body: frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames), framed: undefined }
      this.#roundChunks.set(key, shared)
    }
    if (!chunked) return shared.body
    shared.framed ??= frameChunk(shared.body)
    return shared.framed
  }

  /** Moves `member` to the log's end (after the chunk of {@link chunkFor} was handed to its socket). */
  advance(member: Member): void {
    member.cursor = this.end
  }

  /**
   * Ends the round: every synced member is now at or past the end captured when it began, so the frames before
   * it go (later ones stay for the members written before they arrived: the group is dirty again).
   */
  endRound(): void {
    const drop = this.#roundEnd - this.#base
    if (drop > 0) {
      this.#frames = this.#frames.slice(drop)
      this.#base = this.#roundEnd
    }
    this.#roundChunks.clear()
  }
}

/** `body` as one HTTP/1.1 chunk: size in hex, CRLF, the bytes, CRLF (RFC 9112 §7.1). */
export function frameChunk(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, CRLF])
}
