// Why OpenCV's CMake lists a module as "Unavailable", and the Debian/Ubuntu fix. OpenCV only
// prints the list; the reasons are each module's dependency checks (modules/*/CMakeLists.txt
// and opencv_contrib's), summarized here for the modules people ask about.
#include <array>
#include <string_view>

#include "opencv/log_report.hpp"

namespace cudoctor::opencv {
namespace {

struct Hint {
    std::string_view module, reason, fix;
};

constexpr std::array kHints{
    Hint{"cudev", "the CUDA modules are not built: CUDA was not found or opencv_contrib is not given",
         "-D WITH_CUDA=ON -D OPENCV_EXTRA_MODULES_PATH=<opencv_contrib>/modules"},
    Hint{"cudacodec", "needs NVIDIA's Video Codec SDK headers (nvcuvid.h, nvEncodeAPI.h) next to CUDA",
         "copy the Video Codec SDK's Interface/*.h into <cuda>/include, or -D WITH_NVCUVID=OFF -D WITH_NVCUVENC=OFF"},
    Hint{"python3", "no usable Python 3: its headers/library or numpy were not found",
         "sudo apt-get install -y python3-dev python3-numpy, then -D PYTHON3_EXECUTABLE=$(command -v python3)"},
    Hint{"python2", "no Python 2 (expected on current systems)", ""},
    Hint{"java", "ant or a JDK (JNI headers) was not found", "sudo apt-get install -y ant default-jdk"},
    Hint{"ts", "the test framework is only built with the tests", "-D BUILD_TESTS=ON"},
    Hint{"freetype", "FreeType and HarfBuzz development files were not found", "sudo apt-get install -y libfreetype-dev libharfbuzz-dev"},
    Hint{"hdf", "the HDF5 development files were not found", "sudo apt-get install -y libhdf5-dev"},
    Hint{"viz", "VTK was not found", "sudo apt-get install -y libvtk9-dev"},
    Hint{"cvv", "needs Qt 5 (WITH_QT)", "sudo apt-get install -y qtbase5-dev, then -D WITH_QT=ON"},
    Hint{"sfm", "needs Ceres, gflags and glog (and Eigen)",
         "sudo apt-get install -y libceres-dev libgflags-dev libgoogle-glog-dev libeigen3-dev"},
    Hint{"alphamat", "needs Eigen", "sudo apt-get install -y libeigen3-dev"},
    Hint{"ovis", "needs OGRE 1.x", "sudo apt-get install -y libogre-1.12-dev"},
    Hint{"julia", "needs Julia and libcxxwrap-julia (rarely wanted)", ""},
    Hint{"matlab", "needs MATLAB's mex (rarely wanted)", ""},
    Hint{"js", "needs Emscripten (only for the JavaScript build)", ""},
    Hint{"gapi", "needs ADE, downloaded at configure time (no network?)", "let CMake download ADE, or -D WITH_ADE=OFF"},
    Hint{"world", "the single-library build is off by default", ""},
};

}  // namespace

ModuleHint module_hint(std::string_view module) {
    if (module.starts_with("cuda") && module != "cudacodec")
        return {"the CUDA modules come from opencv_contrib and need CUDA: one of the two is missing",
                "-D WITH_CUDA=ON -D OPENCV_EXTRA_MODULES_PATH=<opencv_contrib>/modules"};
    for (const auto& h : kHints)
        if (h.module == module) return {std::string(h.reason), std::string(h.fix)};
    return {};
}

}  // namespace cudoctor::opencv
