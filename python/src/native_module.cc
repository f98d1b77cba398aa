// dlp._native: NativeClient (native_client.h) for python/dlp/. Calls that
// talk to a backend release the GIL; waits poll for Ctrl-C; a StatusError
// becomes the exception dlp.errors.from_status picks for its exit code.
#include <optional>
#include <string>

#include "dlp/exit_code.h"
#include "native_client.h"
#include "pybind11/functional.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "status_error.h"

namespace py = pybind11;

namespace dlp::python {
namespace {

// Runs a wait with the GIL released, ending it when Python has a signal to
// handle (Ctrl-C: KeyboardInterrupt is raised, the job keeps running).
template <typename WaitCall>
std::string WaitInterruptibly(const WaitCall& wait) {
  bool interrupted = false;
  std::string json;
  try {
    py::gil_scoped_release release;
    json = wait([&] {
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) interrupted = true;
      return interrupted;
    });
  } catch (const StatusError&) {
    if (!interrupted) throw;
  }
  if (interrupted) throw py::error_already_set();
  return json;
}

// Streams lines to a Python callable (returning false stops); an exception it
// raises stops the stream and is raised again here.
void StreamLogs(NativeClient& client, const std::string& id, const LogRequest& request,
                const py::function& sink) {
  std::optional<py::error_already_set> raised;
  {
    py::gil_scoped_release release;
    client.Logs(id, request, [&](const LogRow& row) {
      py::gil_scoped_acquire acquire;
      try {
        return sink(row.replica, row.stream, row.time, row.text).cast<bool>();
      } catch (py::error_already_set& e) {
        raised = std::move(e);
        return false;
      }
    });
  }
  if (raised) throw *raised;
}

void TranslateStatusError(std::exception_ptr thrown) {
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const StatusError& e) {
    py::object error = py::module_::import("dlp.errors")
                           .attr("from_status")(e.code_name(), e.exit_code(), e.what());
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  }
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "dlp's client library (libdlp); use the dlp package, not this module";
  py::register_exception_translator(&TranslateStatusError);
  // dlp(1)'s exit codes, which python/dlp/errors.py names (a test compares).
  py::dict exit_codes;
  exit_codes["JOB_FAILED"] = static_cast<int>(ExitCode::kJobFailed);
  exit_codes["USAGE"] = static_cast<int>(ExitCode::kUsage);
  exit_codes["NOT_FOUND"] = static_cast<int>(ExitCode::kNotFound);
  exit_codes["BACKEND"] = static_cast<int>(ExitCode::kBackend);
  exit_codes["CANCELLED"] = static_cast<int>(ExitCode::kCancelled);
  exit_codes["DENIED"] = static_cast<int>(ExitCode::kDenied);
  exit_codes["INTERRUPTED"] = static_cast<int>(ExitCode::kInterrupted);
  m.attr("EXIT_CODES") = exit_codes;
  using Release = py::call_guard<py::gil_scoped_release>;

  py::class_<NativeClient>(m, "NativeClient")
      .def(py::init<const std::string&, const std::string&>(), py::arg("context"),
           py::arg("config"), Release())
      .def("context_name", &NativeClient::ContextName)
      .def(
          "submit",
          [](NativeClient& c, const std::string& path, std::optional<std::string> text,
             std::vector<std::string> overrides, std::string name) {
            Submitted s;
            {
              py::gil_scoped_release release;
              s = c.Submit({path, std::move(text), std::move(overrides), std::move(name)});
            }
            return py::make_tuple(s.kind, s.json);
          },
          py::arg("path"), py::arg("text"), py::arg("overrides"), py::arg("name"))
      .def("get", &NativeClient::Get, Release())
      .def("list", &NativeClient::List, py::arg("state"), py::arg("labels"), py::arg("queue"),
           py::arg("limit"), Release())
      .def("cancel", &NativeClient::Cancel, Release())
      .def("delete", &NativeClient::Delete, py::arg("id"), py::arg("force"), Release())
      .def("wait",
           [](NativeClient& c, const std::string& id, double timeout) {
             return WaitInterruptibly(
                 [&](const StopCheck& stop) { return c.Wait(id, timeout, stop); });
           })
      .def("logs",
           [](NativeClient& c, const std::string& id, const std::string& replica, bool follow,
              int64_t tail, bool metrics, const py::function& sink) {
             StreamLogs(c, id, {replica, follow, tail, metrics}, sink);
           })
      .def(
          "metrics",
          [](NativeClient& c, const std::string& id, const std::string& name,
             const std::string& replica) {
            std::vector<MetricRow> rows;
            {
              py::gil_scoped_release release;
              rows = c.Metrics(id, name, replica);
            }
            py::list out;
            for (const MetricRow& r : rows) {
              out.append(py::make_tuple(r.replica, r.name, r.step, r.value, r.time));
            }
            return out;
          })
      .def("get_sweep", &NativeClient::GetSweep, Release())
      .def("list_sweeps", &NativeClient::ListSweeps, Release())
      .def("cancel_sweep", &NativeClient::CancelSweep, Release())
      .def("delete_sweep", &NativeClient::DeleteSweep, py::arg("id"), py::arg("force"), Release())
      .def("wait_sweep",
           [](NativeClient& c, const std::string& id, double timeout) {
             return WaitInterruptibly(
                 [&](const StopCheck& stop) { return c.WaitSweep(id, timeout, stop); });
           })
      .def("register_model", &NativeClient::RegisterModel, Release())
      .def("get_model", &NativeClient::GetModel, Release())
      .def("list_models", &NativeClient::ListModels, Release())
      .def("download_model", &NativeClient::DownloadModel, Release());
}

}  // namespace dlp::python
