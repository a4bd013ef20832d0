//! Chinese, Japanese and Korean transcripts, one language per message, with
//! English words, paths and commands embedded the way they are in real chats
//! (`用 Docker 部署`, `Dockerの設定`, `API를 호출`).
//!
//! Sentences are built from Zipf-weighted word lists: function characters
//! and particles are frequent, technical compounds rarer, so the frequency of
//! 1-, 2- and 3-character substrings is skewed like in real text.

use super::tech::Tech;
use super::Writer;
use crate::rng::{Rng, Zipf};

/// Simplified Chinese words and characters, most frequent first.
const CHINESE: &str = "
    的 了 是 在 我 不 有 这 个 你 们 就 也 和 到 要 说 会 一下 可以 没有 我们 这个
    问题 需要 文件 如果 什么 因为 所以 但是 已经 现在 然后 还是 一个 时候 服务器
    配置 数据库 代码 运行 使用 修改 更新 部署 测试 错误 日志 用户 系统 功能 接口
    请求 返回 结果 版本 安装 环境 变量 目录 路径 命令 脚本 检查 确认 看看 一起
    今天 明天 昨天 工作 项目 会议 时间 地方 东西 知道 觉得 应该 可能 比较 非常
    特别 一些 其他 之后 之前 里面 上面 下面 怎么 为什么 哪里 谁 多少 中文 搜索
    查询 索引 字符 分词 会话 消息 记录 历史 内容 权限 密码 账号 登录 网络 连接
    端口 缓存 内存 性能 速度 慢 快 大 小 新 旧 好 坏 对 错 多 少 上 下 中 来 去
    看 想 做 用 给 让 被 把 从 对于 关于 通过 根据 进行 处理 完成 开始 结束 成功
    失败 重启 删除 添加 创建 打开 关闭 保存 下载 上传 发送 接收 提交 合并 分支
    容器 镜像 集群 节点 任务 进程 线程 函数 方法 参数 类型 对象 数组 列表 字段
    表格 报告 文档 说明 例子 方案 建议 计划 需求 设计 实现 优化 北京 上海 深圳
    东京 中国 公司 团队 同事 客户 老板 朋友 电脑 手机 邮件 微信 地址 数据 信息
    程序 软件 硬件 安全 风险 原因 情况 方式 能力 经验 水平 吗 吧 呢 啊 他 她 它
    都 很 还 又 再 才 只 最 更 太 真的 当然 或者 而且 虽然 不过 其实 马上 一直
";

/// Japanese nouns: kanji compounds and katakana loanwords.
const JAPANESE_NOUNS: &str = "
    これ それ 設定 問題 ファイル サーバー 確認 エラー 今日 データベース 方法 場合
    時間 必要 データ 機能 ユーザー 実行 変更 追加 削除 修正 テスト 環境 バージョン
    コード 結果 会議 明日 検索 日本語 文字 索引 履歴 会話 メッセージ ログ
    ディレクトリ パス コマンド スクリプト 権限 パスワード ネットワーク 接続 ポート
    キャッシュ メモリ 性能 速度 原因 対応 作業 資料 説明 内容 東京 大阪 会社
    チーム 皆さん お客様 ラーメン 寿司 天気 電車 仕事 予定 質問 回答 画面 ブラウザ
    アプリ プロジェクト リリース デプロイ コンテナ イメージ クラスタ ブランチ
    コミット マージ レビュー 処理 起動 停止 再起動 保存 読み込み 書き込み 表示 登録
    更新 通知 設計 実装 最適化 調査 報告 私 彼 自分 全部 一部 前回 次回 先週 来週
";

/// Japanese particles.
const JAPANESE_PARTICLES: &str = "の を は に が で と も から まで へ や より";

/// Japanese endings, written after a noun (`確認` + `しました`).
const JAPANESE_ENDINGS: &str = "
    します しました しています してください です でした できます できません
    ではありません だと思います が必要です になります されました しましょう ですか
    を確認してください がありません が発生しました について教えてください
    はどうですか でお願いします
";

/// Japanese sentence openers.
const JAPANESE_OPENERS: &str = "
    まず 次に そして しかし ただし また つまり 実は たぶん すみません 念のため
    ちなみに さっき
";

/// Korean nouns.
const KOREAN_NOUNS: &str = "
    서버 설정 파일 오류 확인 데이터베이스 사용자 문제 코드 테스트 로그 명령어
    디렉터리 환경 변수 버전 업데이트 설치 실행 결과 요청 응답 함수 클래스 모듈
    패키지 네트워크 연결 포트 컨테이너 이미지 저장소 브랜치 커밋 회의 일정
    프로젝트 팀 내일 오늘 지금 다음 이전 경우 방법 이유 시간 메모리 성능 속도
    보안 권한 계정 비밀번호 서비스 스크립트 데이터 질문 답변 설명 예제 문서 검색
    색인 한국어 글자 기록 대화 메시지 서울 부산 회사 고객 동료 점심 커피 배포
    수정 삭제 추가 변경 처리 작업 보고서 화면 브라우저 앱
";

/// Korean particles as (after a final consonant, after a vowel).
const KOREAN_PARTICLES: &[(&str, &str)] = &[
    ("을", "를"),
    ("은", "는"),
    ("이", "가"),
    ("에", "에"),
    ("에서", "에서"),
    ("으로", "로"),
    ("과", "와"),
    ("도", "도"),
    ("의", "의"),
    ("만", "만"),
    ("까지", "까지"),
];

/// Korean endings written after a noun (`확인` + `했습니다`).
const KOREAN_ENDINGS: &str = "
    했습니다 합니다 해주세요 입니다 했어요 할까요 하겠습니다 됩니다 되었습니다
    중입니다 해야해요 이에요 해보세요 하지마세요
";

/// Korean predicates that stand alone.
const KOREAN_PREDICATES: &str = "
    있습니다 없습니다 같습니다 좋습니다 맞습니다 됩니다 부탁드립니다 감사합니다
    알겠습니다 필요합니다 어렵습니다 괜찮아요
";

/// Korean adverbs that open a sentence.
const KOREAN_ADVERBS: &str = "다시 먼저 지금 이미 아직 같이 너무 정말 조금 바로 계속 혹시";

/// Writer of Chinese, Japanese and Korean messages.
#[derive(Debug, Clone)]
pub struct Cjk {
    chinese: Zipf,
    japanese: [Zipf; 4],
    korean: [Zipf; 4],
    tech: Tech,
}

/// Language index of Chinese messages.
const CHINESE_TEXT: usize = 0;
/// Language index of Japanese messages.
const JAPANESE_TEXT: usize = 1;
/// Language index of Korean messages.
const KOREAN_TEXT: usize = 2;

impl Cjk {
    /// A writer with its word lists.
    pub fn new() -> Cjk {
        Cjk {
            chinese: Zipf::new(CHINESE, 0.9),
            japanese: [
                Zipf::new(JAPANESE_NOUNS, 0.8),
                Zipf::new(JAPANESE_PARTICLES, 1.2),
                Zipf::new(JAPANESE_ENDINGS, 1.0),
                Zipf::new(JAPANESE_OPENERS, 1.0),
            ],
            korean: [
                Zipf::new(KOREAN_NOUNS, 0.8),
                Zipf::new(KOREAN_ENDINGS, 1.0),
                Zipf::new(KOREAN_PREDICATES, 1.0),
                Zipf::new(KOREAN_ADVERBS, 1.0),
            ],
            tech: Tech::new(),
        }
    }

    /// Appends a Chinese sentence of 5 to 16 words, with commas, and now and
    /// then an English word, spaced or not.
    fn chinese_sentence(&self, rng: &mut Rng, out: &mut String) {
        let mut previous = "";
        for i in 0..rng.between(5, 16) {
            if i > 0 && rng.chance(0.1) {
                out.push('，');
            }
            if rng.chance(0.05) {
                let spaced = rng.chance(0.5);
                push_if(spaced && !out.ends_with(' '), ' ', out);
                self.tech.word(rng, out);
                push_if(spaced, ' ', out);
            } else {
                previous = self.chinese.sample_other(rng, previous);
                out.push_str(previous);
            }
        }
        out.push_str(cjk_full_stop(rng));
    }

    /// Appends a Japanese sentence: an optional opener, noun phrases with
    /// particles, and a noun with a verbal or copular ending.
    fn japanese_sentence(&self, rng: &mut Rng, out: &mut String) {
        let [nouns, particles, endings, openers] = &self.japanese;
        if rng.chance(0.25) {
            out.push_str(openers.sample(rng));
            out.push('、');
        }
        for _ in 0..rng.between(1, 4) {
            self.japanese_noun(nouns, rng, out);
            if rng.chance(0.25) {
                out.push('の');
                self.japanese_noun(nouns, rng, out);
            }
            out.push_str(particles.sample(rng));
        }
        self.japanese_noun(nouns, rng, out);
        out.push_str(endings.sample(rng));
        out.push_str(cjk_full_stop(rng));
    }

    /// Appends a Japanese noun, or sometimes an English word in its place.
    fn japanese_noun(&self, nouns: &Zipf, rng: &mut Rng, out: &mut String) {
        if rng.chance(0.07) {
            self.tech.word(rng, out);
        } else {
            out.push_str(nouns.sample(rng));
        }
    }

    /// Appends a Korean sentence: an optional adverb, words with particles
    /// chosen by the final consonant, and a predicate.
    fn korean_sentence(&self, rng: &mut Rng, out: &mut String) {
        let [nouns, endings, predicates, adverbs] = &self.korean;
        if rng.chance(0.3) {
            out.push_str(adverbs.sample(rng));
            out.push(' ');
        }
        for _ in 0..rng.between(1, 3) {
            let start = out.len();
            if rng.chance(0.07) {
                self.tech.word(rng, out);
            } else {
                out.push_str(nouns.sample(rng));
            }
            let (after_consonant, after_vowel) = rng.pick(KOREAN_PARTICLES);
            let final_consonant = out[start..].chars().last().is_some_and(has_final_consonant);
            out.push_str(if final_consonant {
                after_consonant
            } else {
                after_vowel
            });
            out.push(' ');
        }
        if rng.chance(0.4) {
            out.push_str(predicates.sample(rng));
        } else {
            out.push_str(nouns.sample(rng));
            out.push_str(endings.sample(rng));
        }
        out.push_str(match rng.below(20) {
            0..=2 => "?",
            3 => "!",
            _ => ".",
        });
    }
}

impl Writer for Cjk {
    fn language(&self, rng: &mut Rng) -> usize {
        match rng.below(20) {
            0..=8 => CHINESE_TEXT,
            9..=15 => JAPANESE_TEXT,
            _ => KOREAN_TEXT,
        }
    }

    fn segment(&self, language: usize, rng: &mut Rng, out: &mut String) {
        if rng.chance(0.04) {
            self.tech.block(rng, out);
            return;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            match (rng.chance(0.12), language) {
                (true, _) => out.push('\n'),
                (false, CHINESE_TEXT | JAPANESE_TEXT) => {}
                (false, _) => out.push(' '),
            }
        }
        match language {
            CHINESE_TEXT => self.chinese_sentence(rng, out),
            JAPANESE_TEXT => self.japanese_sentence(rng, out),
            _ => self.korean_sentence(rng, out),
        }
    }
}

/// Whether a Hangul syllable ends in a consonant (has a batchim).
fn has_final_consonant(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 if (c as u32 - 0xAC00) % 28 != 0)
}

/// A full-width sentence end: mostly `。`, sometimes `？` or `！`.
fn cjk_full_stop(rng: &mut Rng) -> &'static str {
    match rng.below(20) {
        0 | 1 => "？",
        2 => "！",
        _ => "。",
    }
}

/// Pushes `c` when `condition` holds.
fn push_if(condition: bool, c: char, out: &mut String) {
    if condition {
        out.push(c);
    }
}
