// Placeholder translation unit until the assembler lands.
namespace mlvm {}
