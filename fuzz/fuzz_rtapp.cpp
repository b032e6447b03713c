// The rt-app reader alone on any text: rt-app's own files (tasks, phases, events, global),
// without the schedlab sections.
#include "fuzz_common.h"
#include "json/jread.h"
#include "json/jtree.h"
#include "workload/rtapp_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedlab::fuzz::expecting_input_errors([&] {
    const schedlab::JValue root =
        schedlab::parse_json(schedlab::fuzz::text_of(data, size), "rt.json");
    const schedlab::JsonReader reader("rt.json");
    schedlab::Workload w;
    schedlab::RtAppGlobal global;
    schedlab::read_rtapp(root, reader, w, global, true);
    schedlab::validate_workload(w, reader);
  });
  return 0;
}
