#pragma once

#include <QString>

namespace post {

// The Open dialog's name filters, from the importer table (core/io/ImporterTable): "Graphs
// and traces (*.json *.json.gz *.onnx ...)" first, then one filter per readable format
// ("PyTorch execution trace (*.json *.json.gz)"), then "All files (*)".
QString graphOpenFilters();

} // namespace post
