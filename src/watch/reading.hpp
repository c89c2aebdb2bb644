#pragma once
// What one sample of the GPUs holds: the NVML answer of driver/nvml_sample.hpp, by watch's names.
#include "driver/nvml_sample.hpp"

namespace cudoctor::watch {

using driver::GpuReading;
using driver::ProcessReading;
using driver::Reading;

}  // namespace cudoctor::watch
