#include "sim/topo/nccl_xml_system.hpp"

#include <charconv>

#include <fmt/format.h>

#include "sim/core/chars_to_double.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

// Walks the element tree, checking each element NCCL's loader accepts where it accepts it
// (system > cpu > pci|nic, pci > pci|gpu|nic|pcilink, gpu > nvlink|c2c, nic > net).
class SystemReader {
 public:
  explicit SystemReader(const std::string& source) : source_(source) {}

  NcclSystem read(const XmlElement& root) {
    if (root.name != "system") fail(root, "", fmt::format("<{}>", root.name), "the root element <system> of an NCCL topology dump");
    if (integer(root, "version") != 1) {
      fail(root, "version", in_quotes(*root.attribute("version")), "version 1 (NCCL_TOPO_XML_VERSION)");
    }
    no_text(root);
    for (const XmlElement& c : root.children) {
      if (c.name != "cpu") fail(c, "", fmt::format("<{}>", c.name), "only <cpu> elements inside <system>");
      cpu(c);
    }
    if (out_.cpus.empty()) fail(root, "", "no <cpu>", "at least one <cpu> element inside <system>");
    return std::move(out_);
  }

 private:
  const std::string& source_;
  NcclSystem out_;

  [[noreturn]] void fail(const XmlElement& e, std::string_view attr, const std::string& value,
                         const std::string& expected) const {
    const std::string where = attr.empty() ? fmt::format("line {}, <{}>", e.line, e.name)
                                           : fmt::format("line {}, <{}> attribute \"{}\"", e.line, e.name, attr);
    throw ConfigError(source_, where, value, expected);
  }

  void no_text(const XmlElement& e) const {
    for (char c : e.text) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        fail(e, "", "text", "only elements inside <" + e.name + "> (NCCL's elements carry no text)");
      }
    }
  }
  const std::string& required(const XmlElement& e, std::string_view key, const char* what) const {
    const std::string* v = e.attribute(key);
    if (v == nullptr) fail(e, key, "", fmt::format("attribute {}=\"...\" ({})", key, what));
    return *v;
  }
  // A decimal integer, or hexadecimal with 0x.
  long long integer(const XmlElement& e, std::string_view key, const char* what = "an integer") const {
    const std::string& v = required(e, key, what);
    const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const char* first = v.data() + (hex ? 2 : 0);
    const char* last = v.data() + v.size();
    long long out = 0;
    const auto [ptr, ec] = std::from_chars(first, last, out, hex ? 16 : 10);
    if (ec != std::errc() || ptr != last || first == last) fail(e, key, in_quotes(v), what);
    return out;
  }

  void cpu(const XmlElement& e) {
    NcclCpu c;
    c.line = e.line;
    c.numaid = required(e, "numaid", "the CPU's NUMA node");
    if (const std::string* v = e.attribute("arch")) c.arch = *v;
    if (const std::string* v = e.attribute("vendor")) c.vendor = *v;
    if (!c.vendor.empty()) {
      c.family = static_cast<int>(integer(e, "familyid", "the CPU's CPUID family, an integer"));
      c.model = static_cast<int>(integer(e, "modelid", "the CPU's CPUID model, an integer"));
    }
    no_text(e);
    out_.cpus.push_back(c);
    const int index = static_cast<int>(out_.cpus.size() - 1);
    for (const XmlElement& k : e.children) {
      if (k.name == "pci") {
        pci(k, index, std::nullopt);
      } else if (k.name == "nic") {
        fail(k, "", "<nic> outside a <pci>", "a NIC inside its <pci> element (collsim needs its PCIe link)");
      } else {
        fail(k, "", fmt::format("<{}>", k.name), "only <pci> or <nic> inside <cpu>");
      }
    }
  }

  NcclPcieLink pcie_link(const XmlElement& e) const {
    NcclPcieLink l;
    const std::string& speed = required(e, "link_speed", "PCIe link speed, e.g. \"16.0 GT/s PCIe\"");
    double gts = 0.0;
    const auto [ptr, ec] = chars_to_double(speed.data(), speed.data() + speed.size(), gts);
    const std::string rest(ptr, speed.data() + speed.size());
    const bool unit_ok = rest == " GT/s" || rest == " GT/s PCIe" || rest == "GT/s";
    if (ec != std::errc() || !unit_ok || (gts != 8.0 && gts != 16.0 && gts != 32.0)) {
      fail(e, "link_speed", in_quotes(speed), "\"8.0 GT/s PCIe\", \"16.0 GT/s PCIe\" or \"32.0 GT/s PCIe\" (Gen3 to Gen5, what collsim models)");
    }
    l.generation = gts == 8.0 ? 3 : gts == 16.0 ? 4 : 5;
    const long long w = integer(e, "link_width", "PCIe lanes, an integer from 1 to 32");
    if (w < 1 || w > 32) fail(e, "link_width", in_quotes(*e.attribute("link_width")), "PCIe lanes, an integer from 1 to 32");
    l.width = static_cast<int>(w);
    return l;
  }

  NcclDevice device_base(const XmlElement& e, NcclDeviceKind kind, int cpu, std::optional<int> parent) const {
    NcclDevice d;
    d.kind = kind;
    d.busid = required(e, "busid", "the PCI bus id, e.g. \"0000:07:00.0\"");
    d.cpu = cpu;
    d.parent = parent;
    d.link = pcie_link(e);
    if (const std::string* v = e.attribute("device")) d.pci_device = *v;
    d.line = e.line;
    return d;
  }

  void pci(const XmlElement& e, int cpu, std::optional<int> parent) {
    no_text(e);
    const XmlElement* gpu_el = nullptr;
    const XmlElement* nic_el = nullptr;
    for (const XmlElement& k : e.children) {
      if (k.name == "gpu") gpu_el = &k;
      if (k.name == "nic") nic_el = &k;
    }
    if (gpu_el != nullptr) {
      if (e.children.size() != 1) fail(e, "", "more than a <gpu> inside", "one <gpu> and nothing else inside a GPU's <pci>");
      gpu(*gpu_el, device_base(e, NcclDeviceKind::Gpu, cpu, parent));
      return;
    }
    if (nic_el != nullptr) {
      if (e.children.size() != 1) fail(e, "", "more than a <nic> inside", "one <nic> and nothing else inside a NIC's <pci>");
      nic(*nic_el, device_base(e, NcclDeviceKind::Nic, cpu, parent));
      return;
    }
    const std::string& cls = required(e, "class", "the PCI class, e.g. \"0x060400\" for a bridge");
    if (cls.rfind("0x0604", 0) != 0) {
      fail(e, "class", in_quotes(cls), "a PCI bridge (0x0604xx) when the <pci> holds no <gpu> or <nic>");
    }
    out_.devices.push_back(device_base(e, NcclDeviceKind::PcieSwitch, cpu, parent));
    const int index = static_cast<int>(out_.devices.size() - 1);
    for (const XmlElement& k : e.children) {
      if (k.name == "pci") {
        pci(k, cpu, index);
      } else if (k.name != "pcilink") {  // Broadcom switch peer links: not modelled, the tree is
        fail(k, "", fmt::format("<{}>", k.name), "only <pci>, <gpu>, <nic> or <pcilink> inside <pci>");
      }
    }
  }

  void gpu(const XmlElement& e, NcclDevice d) {
    no_text(e);
    d.line = e.line;
    d.dev = static_cast<int>(integer(e, "dev", "the CUDA device index, an integer"));
    d.sm = static_cast<int>(integer(e, "sm", "the compute capability x 10, e.g. 80"));
    for (const XmlElement& k : e.children) {
      if (k.name == "c2c") fail(k, "", "<c2c>", "no C2C links (Grace-Hopper CPU links are not modelled)");
      if (k.name != "nvlink") fail(k, "", fmt::format("<{}>", k.name), "only <nvlink> inside <gpu>");
      NcclNvLink l;
      l.line = k.line;
      l.target = required(k, "target", "the bus id at the other end");
      const long long n = integer(k, "count", "the number of NVLinks, an integer from 1 to 18");
      if (n < 1 || n > 18) fail(k, "count", in_quotes(*k.attribute("count")), "the number of NVLinks, an integer from 1 to 18");
      l.count = static_cast<int>(n);
      const std::string& tclass = required(k, "tclass", "the PCI class at the other end");
      if (tclass == "0x068000") {
        l.to_nvswitch = true;
      } else if (tclass.rfind("0x03", 0) != 0 || tclass.size() != 8) {
        fail(k, "tclass", in_quotes(tclass), "an NVSwitch (0x068000) or a GPU (0x03xxxx)");
      }
      d.nvlinks.push_back(l);
    }
    out_.devices.push_back(std::move(d));
  }

  void nic(const XmlElement& e, const NcclDevice& base) {
    no_text(e);
    if (e.children.empty()) fail(e, "", "no <net>", "at least one <net> (a port) inside <nic>");
    for (const XmlElement& k : e.children) {
      if (k.name != "net") fail(k, "", fmt::format("<{}>", k.name), "only <net> inside <nic>");
      NcclDevice d = base;
      d.line = k.line;
      d.net_name = required(k, "name", "the network device name, e.g. \"mlx5_0\"");
      d.net_dev = static_cast<int>(integer(k, "dev", "NCCL's net device index, an integer"));
      const long long speed = integer(k, "speed", "the port speed in Mb/s, a positive integer");
      if (speed <= 0) fail(k, "speed", in_quotes(*k.attribute("speed")), "the port speed in Mb/s, a positive integer");
      d.speed_mbps = static_cast<double>(speed);
      // The plugin's latency in us (NCCL writes it since 2.12; older dumps lack it: 0).
      if (const std::string* v = k.attribute("latency")) {
        const char* what = "the net plugin's latency in us, a number from 0 to 10000";
        double us = -1.0;
        const auto [ptr, ec] = chars_to_double(v->data(), v->data() + v->size(), us);
        if (ec != std::errc() || ptr != v->data() + v->size() || v->empty() || !(us >= 0.0 && us <= 10000.0)) {
          fail(k, "latency", in_quotes(*v), what);
        }
        d.net_latency_us = us;
      }
      out_.devices.push_back(std::move(d));
    }
  }
};

}  // namespace

NcclSystem read_nccl_system(const XmlElement& root, const std::string& source) {
  return SystemReader(source).read(root);
}

}  // namespace collsim
