//! The space as MMTk's `Space`: its page resource, its reserved pages (the core's resident
//! pages and their side metadata), object enumeration, and the log bits it does not use.

use super::ShardSweepSpace;
use crate::policy::marksweepspace::shardsweep::region::Block;
use crate::util::heap::chunk_map::Chunk;
use crate::util::linear_scan::Region;
use crate::vm::ObjectModel;
use crate::policy::sft::SFT;
use crate::policy::space::{CommonSpace, Space};
use crate::util::heap::PageResource;
use crate::util::object_enum::{self, ObjectEnumerator};
use crate::util::Address;
use crate::vm::VMBinding;

impl<VM: VMBinding> Space<VM> for ShardSweepSpace<VM> {
    fn as_space(&self) -> &dyn Space<VM> {
        self
    }

    fn as_sft(&self) -> &(dyn SFT + Sync + 'static) {
        self
    }

    fn get_page_resource(&self) -> &dyn PageResource<VM> {
        &self.pr
    }

    fn maybe_get_page_resource_mut(&mut self) -> Option<&mut dyn PageResource<VM>> {
        Some(&mut self.pr)
    }

    fn initialize_sft(&self, sft_map: &mut dyn crate::policy::sft_map::SFTMap) {
        self.common().initialize_sft(self.as_sft(), sft_map)
    }

    fn common(&self) -> &CommonSpace<VM> {
        &self.common
    }

    fn release_multiple_pages(&mut self, _start: Address) {
        unreachable!("the shardsweep space gives blocks back through its page resource")
    }

    /// Charged pages plus their side metadata: page-granular (block-granular under
    /// `SHARDSWEEP_ACCOUNTING=block`).
    fn reserved_pages(&self) -> usize {
        let data = self.charged_pages();
        data + self.estimate_side_meta_pages(data)
    }

    fn enumerate_objects(&self, enumerator: &mut dyn ObjectEnumerator) {
        object_enum::enumerate_blocks_from_chunk_map::<Block>(enumerator, &self.chunk_map);
    }

    /// Clears the log bits of every chunk of the space (called by plans with side log bits).
    fn clear_side_log_bits(&self) {
        let log_bit = VM::VMObjectModel::GLOBAL_LOG_BIT_SPEC.extract_side_spec();
        for chunk in self.chunk_map.all_chunks() {
            log_bit.bzero_metadata(chunk.start(), Chunk::BYTES);
        }
    }

    /// Sets the log bits of every chunk of the space (called by plans with side log bits).
    fn set_side_log_bits(&self) {
        let log_bit = VM::VMObjectModel::GLOBAL_LOG_BIT_SPEC.extract_side_spec();
        for chunk in self.chunk_map.all_chunks() {
            log_bit.bset_metadata(chunk.start(), Chunk::BYTES);
        }
    }
}
