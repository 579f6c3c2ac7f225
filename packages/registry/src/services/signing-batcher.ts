/**
 * Gathers the signing requests of one event-loop turn into one hand-off.
 *
 * A registry mints one receipt per publish, and handing each signature to another thread on its own costs a
 * thread wake-up and a completion callback per publish on the serving thread — on a two-vCPU machine more than the
 * signature itself. Publishes whose receipts become ready in the same turn (their producer-signature checks
 * completed together, or their requests arrived together) are signed by one dispatch instead. The flush runs in
 * the turn's check phase (setImmediate), after every I/O callback of the poll phase has queued its request, so an
 * idle registry adds no wait. Each message still gets its own signature; a failed dispatch rejects only the
 * requests it carried.
 */

/** Signs every message of one batch elsewhere; resolves one signature per message, in order. */
export type BatchDispatch = (messages: readonly Uint8Array[]) => Promise<readonly Uint8Array[]>

interface PendingSignature {
  readonly message: Uint8Array
  readonly resolve: (signature: Uint8Array) => void
  readonly reject: (error: unknown) => void
}

export class SigningBatcher {
  private readonly dispatch: BatchDispatch
  private queue: PendingSignature[] = []
  private scheduled = false
  private closed = false
  private dispatched = 0

  constructor(dispatch: BatchDispatch) {
    this.dispatch = dispatch
  }

  /** Batches dispatched so far (one hand-off each); tests and measurements read it. */
  get handOffs(): number {
    return this.dispatched
  }

  /** The signature of `message`, signed with the turn's other requests. Rejects once the batcher is closed. */
  readonly sign = (message: Uint8Array): Promise<Uint8Array> => {
    if (this.closed) return Promise.reject(new Error('the receipt signer is closed'))
    return new Promise<Uint8Array>((resolve, reject) => {
      this.queue.push({ message, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(this.flush)
      }
    })
  }

  /** Rejects the requests not yet dispatched; later requests reject at once. Dispatched batches settle by their dispatch. */
  close(): void {
    this.closed = true
    const queued = this.queue
    this.queue = []
    for (const pending of queued) pending.reject(new Error('the receipt signer closed before signing'))
  }

  private readonly flush = (): void => {
    this.scheduled = false
    const batch = this.queue
    if (batch.length === 0) return
    this.queue = []
    this.dispatched += 1
    let signing: Promise<readonly Uint8Array[]>
    try {
      signing = this.dispatch(batch.map((pending) => pending.message))
    } catch (error) {
      signing = Promise.reject(error)
    }
    signing.then(
      (signatures) => {
        if (signatures.length !== batch.length) {
          const error = new Error(`the receipt signer answered ${signatures.length} signatures for ${batch.length}`)
          for (const pending of batch) pending.reject(error)
          return
        }
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(signatures[i]!)
      },
      (error: unknown) => {
        for (const pending of batch) pending.reject(error)
      },
    )
  }
}
