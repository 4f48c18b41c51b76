//! The space's GC work packets: sweeping detached batches of abandoned blocks in parallel
//! (release phase), and finishing lazy sweeps before marking (prepare phase).

use crate::scheduler::{GCWork, GCWorkScheduler, GCWorker, WorkBucketStage};
use crate::vm::VMBinding;
use crate::MMTK;
use shardsweep::{AbandonedBatch, Heap, Shared, BIN_COUNT};
use std::marker::PhantomData;

/// Blocks per sweep packet: enough to amortise a packet, few enough to spread over workers.
const BLOCKS_PER_PACKET: usize = 32;

/// Sweeps some detached batches of abandoned blocks (a range of bins, or part of one bin).
pub(super) struct SweepAbandoned<VM: VMBinding> {
    shared: &'static Shared,
    /// The space's sweep oracle (`sweep::sweep_oracle`).
    oracle: fn(*mut u8) -> bool,
    batches: Vec<AbandonedBatch>,
    _vm: PhantomData<fn() -> VM>,
}

impl<VM: VMBinding> GCWork<VM> for SweepAbandoned<VM> {
    fn do_work(&mut self, _worker: &mut GCWorker<VM>, _mmtk: &'static MMTK<VM>) {
        for batch in self.batches.drain(..) {
            self.shared.sweep_batch(batch, &mut self.oracle);
        }
    }
}

/// Detaches every abandoned stack and queues packets of at most [`BLOCKS_PER_PACKET`] blocks
/// (consecutive bins share a packet; a large bin is split) in the release bucket. Called from
/// the plan's `Release` packet, before it queues the `ReleaseMutator` packets: blocks that
/// mutator sweeps abandon afterwards are already swept and not in any batch, so no block is
/// swept twice. `oracle` tells a marked cell (the space's `sweep_oracle`). Returns the number of
/// packets.
pub(super) fn queue_abandoned_sweeps<VM: VMBinding>(
    scheduler: &GCWorkScheduler<VM>,
    shared: &'static Shared,
    oracle: fn(*mut u8) -> bool,
) -> usize {
    let mut packets: Vec<Box<dyn GCWork<VM>>> = Vec::new();
    let mut current: Vec<AbandonedBatch> = Vec::new();
    let mut in_current = 0;
    let flush = |current: &mut Vec<AbandonedBatch>, in_current: &mut usize, packets: &mut Vec<Box<dyn GCWork<VM>>>| {
        if !current.is_empty() {
            packets.push(Box::new(SweepAbandoned::<VM> { shared, oracle, batches: std::mem::take(current), _vm: PhantomData }));
            *in_current = 0;
        }
    };
    for bin in 1..BIN_COUNT {
        let mut batch = shared.detach_abandoned(bin);
        while !batch.is_empty() {
            let room = BLOCKS_PER_PACKET - in_current;
            let rest = batch.split_off(room);
            in_current += batch.len();
            current.push(batch);
            batch = rest;
            if in_current >= BLOCKS_PER_PACKET {
                flush(&mut current, &mut in_current, &mut packets);
            }
        }
    }
    flush(&mut current, &mut in_current, &mut packets);
    let n = packets.len();
    scheduler.work_buckets[WorkBucketStage::Release].bulk_add(packets);
    n
}

/// A heap with blocks awaiting a lazy sweep (its mutator is stopped).
pub(super) struct FinishLazySweep<VM: VMBinding> {
    heap: *mut Heap,
    _vm: PhantomData<fn() -> VM>,
}

// SAFETY: the heap is used by this packet only, while its mutator is stopped (prepare phase).
unsafe impl<VM: VMBinding> Send for FinishLazySweep<VM> {}

impl<VM: VMBinding> FinishLazySweep<VM> {
    pub(super) fn new(heap: *mut Heap) -> Self {
        FinishLazySweep { heap, _vm: PhantomData }
    }
}

impl<VM: VMBinding> GCWork<VM> for FinishLazySweep<VM> {
    fn do_work(&mut self, _worker: &mut GCWorker<VM>, _mmtk: &'static MMTK<VM>) {
        // SAFETY: registered heaps live until their mutator is destroyed, which cannot happen
        // during a GC; one packet per heap.
        unsafe { (*self.heap).finish_sweep() };
    }
}
